#!/usr/bin/env python3
"""Checks that the library's stage folders do not use each other's types both ways.

Sources/Sightline/<Folder>/ is one stage. A folder "uses" another when its code names a type,
protocol or free function declared at the top level of the other folder. The uses must form no
cycle (Frames/ and the files at the top of Sources/Sightline use nothing). Prints the uses and
exits 1 with the cycles found. Usage: Scripts/check_layers.py [--graph] [SOURCES_DIR]
"""
import os
import re
import sys

DECL = re.compile(r'^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|private|fileprivate|package|final|open|indirect|nonisolated)\s+)*'
                  r'(struct|class|enum|protocol|typealias|actor|func|let|var)\s+([A-Za-z_][A-Za-z0-9_]*)')
IDENT = re.compile(r'\b[A-Za-z_][A-Za-z0-9_]*\b')
STRIP = re.compile(r'//[^\n]*|/\*.*?\*/|"""(?:.|\n)*?"""|"(?:\\.|[^"\\\n])*"', re.S)


def folders(root):
    out = {}
    for dirpath, _, files in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        stage = "(top)" if rel == "." else rel.split(os.sep)[0]
        for f in files:
            if f.endswith(".swift"):
                with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                    out.setdefault(stage, []).append(STRIP.sub(" ", fh.read()))
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "Sources", "Sightline")
    stages = folders(root)
    declared = {}
    for stage, texts in stages.items():
        for text in texts:
            for line in text.splitlines():
                if line[:1].isspace():   # top level only
                    continue
                m = DECL.match(line)
                # A private declaration is seen only in its own file.
                if m and not re.match(r'^(?:@\w+\s+)*(?:private|fileprivate)\b', line):
                    declared.setdefault(m.group(2), set()).add(stage)
    uses = {s: {} for s in stages}
    for stage, texts in stages.items():
        names = set()
        for text in texts:
            names.update(IDENT.findall(text))
        for name in names:
            for owner in declared.get(name, ()):
                if owner != stage and len(declared[name]) == 1:
                    uses[stage].setdefault(owner, set()).add(name)
    if "--graph" in sys.argv:
        for stage in sorted(uses):
            for owner in sorted(uses[stage]):
                print(f"{stage} -> {owner}: {', '.join(sorted(uses[stage][owner])[:8])}")
    # Cycles: strongly connected components with more than one folder.
    index, low, onstack, stack, comps, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        onstack.add(v)
        for w in uses[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in onstack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                onstack.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(comp)

    for v in sorted(uses):
        if v not in index:
            visit(v)
    cycles = [sorted(c) for c in comps if len(c) > 1]
    for c in cycles:
        pairs = [f"{a} -> {b} ({', '.join(sorted(uses[a][b])[:4])})" for a in c for b in c if b in uses[a]]
        print("cycle between " + ", ".join(c) + ":\n  " + "\n  ".join(pairs))
    if cycles:
        return 1
    print(f"{len(stages)} folders, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
