#!/usr/bin/python3
"""Prints the frame numbers where PySceneDetect's ContentDetector (default settings) starts a new
scene in VIDEO, one line, space-separated: the reference the shot-cut detector is tested against.

usage: Tests/Reference/scene_cuts.py VIDEO [THRESHOLD MIN_SCENE_LEN]
"""
import sys

from scenedetect import SceneManager, open_video
from scenedetect.detectors import ContentDetector

video = open_video(sys.argv[1])
manager = SceneManager()
if len(sys.argv) > 3:
    manager.add_detector(ContentDetector(threshold=float(sys.argv[2]), min_scene_len=int(sys.argv[3])))
else:
    manager.add_detector(ContentDetector())
manager.detect_scenes(video)
# Each scene after the first starts at a cut.
print(" ".join(str(start.frame_num) for start, _ in manager.get_scene_list()[1:]))
