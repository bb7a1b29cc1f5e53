#!/usr/bin/python3
"""Validates Sightline JSON Lines output against the record schemas in Schemas/.

Each line is checked against the schema of its "type" (stream, frame, summary; any other type is
an error), with JSON Schema draft 2020-12. The file as a whole must also be well formed: the
first record is the stream record and the last is the summary, frame indexes run on by one
without gaps (from 0, or from the first frame's position in the stream after --start), frame pts
increase strictly (presentation order), every line ends with a newline, keys appear in the order the schema lists them, no
key is repeated, frames agree with the stream record on which analyzers were off, a cut or
discontinuity record comes right before the frame record it names and no track runs across one, and the summary's
counts match the frame records.

An index written by `sightline scan` (first record `scan`) is checked as one: every record against
its schema, then per file its `scan_file` record (absent for a file that failed), its
`sampled_frame` records in presentation order, its `span` records in order, its `scan_totals`
(whose counts must match), and the `scan_summary` last.

usage: Scripts/validate_records.py [--schemas DIR] [--partial | --messages] FILE.jsonl [...]   (- reads standard input)

--partial checks the output of a run that was killed: the text after the last newline (a line
cut short) is ignored and a missing summary record is not a problem; everything else must hold.
--messages checks records one by one (the payloads capture --publish sends, event records among
them): each against its type's schema and key order, not as one file.

Prints FILE:LINE: message for each problem (at most 20 per file) and exits 1 if there was any;
otherwise prints "FILE: N records valid" for each file and exits 0. Needs python3-jsonschema.
"""
import argparse
import json
import os
import sys

try:
    from jsonschema import Draft202012Validator, RefResolver
except ImportError:
    sys.exit("validate_records.py: needs the jsonschema module (Debian: apt-get install python3-jsonschema)")

MAX_PROBLEMS = 20


class DuplicateKey(ValueError):
    pass


def _object_without_duplicates(pairs):
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise DuplicateKey(f"key {key!r} appears twice in one object")
        seen.add(key)
    return dict(pairs)


def _reject_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def parse_line(text):
    return json.loads(text, object_pairs_hook=_object_without_duplicates, parse_constant=_reject_constant)


def load_schemas(folder):
    """{record type: (schema, validator)} for every *.schema.json in folder."""
    loaded = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".schema.json"):
            continue
        path = os.path.join(folder, name)
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        Draft202012Validator.check_schema(schema)
        loaded.append((path, schema))
    # Schemas refer to each other's $defs (track -> frame): resolve those from the folder.
    store = {schema["$id"]: schema for _, schema in loaded if "$id" in schema}
    schemas = {}
    for path, schema in loaded:
        record_type = schema.get("properties", {}).get("type", {}).get("const")
        if not isinstance(record_type, str):
            raise ValueError(f"{path}: properties.type.const names no record type")
        resolver = RefResolver(base_uri=schema.get("$id", ""), referrer=schema, store=store)
        schemas[record_type] = (schema, Draft202012Validator(schema, resolver=resolver))
    if not schemas:
        raise ValueError(f"no *.schema.json in {folder}")
    return schemas


def where(path):
    """A JSON path like faces[0].box for messages."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def resolve(schema, root):
    while isinstance(schema, dict) and "$ref" in schema and schema["$ref"].startswith("#/"):
        target = root
        for part in schema["$ref"][2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        schema = target
    return schema


def key_order_problems(value, schema, root, path=()):
    """Keys must come in the order of the schema's "properties" (the writer's fixed order)."""
    schema = resolve(schema, root)
    if not isinstance(schema, dict):
        return
    if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        order = list(schema["properties"])
        known = [k for k in value if k in schema["properties"]]
        if known != sorted(known, key=order.index):
            yield f"{where(path) or 'record'}: keys out of order: {', '.join(known)} (expected order: {', '.join(k for k in order if k in value)})"
        for key in known:
            yield from key_order_problems(value[key], schema["properties"][key], root, path + (key,))
    elif isinstance(value, list):
        prefix = schema.get("prefixItems", [])
        for i, item in enumerate(value):
            sub = prefix[i] if i < len(prefix) else schema.get("items")
            if isinstance(sub, dict):
                yield from key_order_problems(item, sub, root, path + (i,))


def describe(error, record):
    """The error's message, without pages of the offending value."""
    value, limit = error.instance, error.validator_value
    if error.validator == "maxItems" and isinstance(value, list):
        path = list(error.absolute_path)
        if limit == 0 and path in (["faces"], ["codes"]):
            status = record.get("status", {}).get(path[0])
            return f"must be empty when status.{path[0]} is {status!r}, has {len(value)} items"
        return f"has {len(value)} items, at most {limit} allowed"
    if error.validator == "maxProperties" and isinstance(value, dict):
        if value.get("backend") == "off":
            return f"only backend is written when backend is off, has keys {', '.join(value)}"
        return f"has keys {', '.join(value)}, at most {limit} allowed here"
    message = error.message
    return message if len(message) <= 300 else message[:300] + "..."


def schema_problems(record, schemas):
    record_type = record.get("type")
    if record_type not in schemas:
        known = ", ".join(sorted(schemas))
        return [f"unknown record type {record_type!r} (known: {known})" if "type" in record
                else f"record has no \"type\" (known types: {known})"]
    schema, validator = schemas[record_type]
    errors = sorted(validator.iter_errors(record), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    problems = [f"{record_type}: {where(e.absolute_path) + ': ' if e.absolute_path else ''}{describe(e, record)}" for e in errors]
    if not problems:
        problems = [f"{record_type}: {p}" for p in key_order_problems(record, schema, schema)]
    return problems


class Counts:
    """What the summary record should say about the frame records."""

    def __init__(self):
        self.frames = self.frames_with_faces = self.frames_with_codes = 0
        self.face_observations = self.code_observations = 0
        self.codes = set()
        self.tracks = 0
        self.dropped = 0
        self.discontinuities = 0

    def add(self, frame):
        faces, codes = frame.get("faces"), frame.get("codes")
        status = frame.get("status")
        if isinstance(status, dict) and "dropped" in status.values():
            self.dropped += 1
        if isinstance(faces, list):
            self.frames_with_faces += bool(faces)
            self.face_observations += len(faces)
        if isinstance(codes, list):
            self.frames_with_codes += bool(codes)
            self.code_observations += len(codes)
            for code in codes:
                if isinstance(code, dict):
                    self.codes.add((code.get("symbology"), code.get("text")))
        self.frames += 1

    def mismatches(self, summary):
        expected = {
            "frames": self.frames,
            "frames_with_faces": self.frames_with_faces,
            "frames_with_codes": self.frames_with_codes,
            "face_observations": self.face_observations,
            "code_observations": self.code_observations,
            "distinct_codes": len(self.codes),
            "tracks": self.tracks,
            "dropped_frames": self.dropped,
        }
        for key, value in expected.items():
            if key in summary and summary[key] != value:
                yield f"summary: {key} is {summary[key]!r} but the frame records give {value}"
        # Written only when there was one.
        if summary.get("discontinuities", 0) != self.discontinuities:
            yield f"summary: discontinuities is {summary.get('discontinuities', 0)!r} but there are {self.discontinuities} discontinuity records"


class CodeConfirmationCheck:
    """A code track's state only goes from unconfirmed to confirmed, and its track record's state
    is the state of its last frame."""

    def __init__(self):
        self.state = {}

    def frame(self, record):
        problems = []
        for code in record.get("codes") or []:
            if not isinstance(code, dict) or "state" not in code or not isinstance(code.get("track"), int):
                continue
            track, state = code["track"], code["state"]
            if self.state.get(track) == "confirmed" and state != "confirmed":
                problems.append(f"frame: code track {track} is {state!r} after it was confirmed")
            self.state[track] = state
        return problems

    def track(self, record):
        if record.get("kind") != "code" or "state" not in record or record.get("id") not in self.state:
            return []
        seen = self.state[record["id"]]
        if record["state"] != seen:
            return [f"track {record['id']}: state {record['state']!r}, but its last frame says {seen!r}"]
        return []


def validate_index(records, schemas):
    """Problems of a scan index given as (line number, record) pairs."""
    problems = []
    files = []                      # per file: source, samples, spans
    current = None
    for n, (number, record) in enumerate(records):
        problems += [(number, p) for p in schema_problems(record, schemas)]
        kind = record.get("type")
        if n == 0:
            continue
        if kind == "scan_summary":
            if n != len(records) - 1:
                problems.append((number, "scan_summary before the last line"))
            expected = {"files": len(files), "failed": sum(f["status"] == "failed" for f in files),
                        "damaged": sum(f["status"] == "damaged" for f in files), "flagged": sum(f["spans"] > 0 for f in files)}
            for key, value in expected.items():
                if record.get(key) != value:
                    problems.append((number, f"scan_summary: {key} is {record.get(key)!r} but the files give {value}"))
            continue
        source = record.get("source")
        if current is None or current["source"] != source:
            current = {"source": source, "samples": [], "spans": 0, "status": None, "opened": kind == "scan_file"}
            files.append(current)
            if kind not in ("scan_file", "scan_totals"):
                problems.append((number, f"{kind!r} record of {source!r} before its scan_file record"))
        elif kind == "scan_file":
            problems.append((number, f"a second scan_file record of {source!r}"))
        if kind == "sampled_frame":
            if current["samples"] and isinstance(record.get("pts"), int) and record["pts"] <= current["samples"][-1]["pts"]:
                problems.append((number, "sampled_frame not after the previous sample (presentation order)"))
            current["samples"].append(record)
        elif kind == "span":
            current["spans"] += 1
        elif kind == "scan_totals":
            current["status"] = record.get("status")
            samples = current["samples"]
            expected = {"samples": len(samples), "spans": current["spans"],
                        "samples_with_faces": sum(bool(s.get("faces")) for s in samples),
                        "samples_with_codes": sum(bool(s.get("codes")) for s in samples)}
            for key, value in expected.items():
                if record.get(key) != value:
                    problems.append((number, f"scan_totals: {key} is {record.get(key)!r} but the records of {source!r} give {value}"))
            if (record.get("status") == "failed") == current["opened"]:
                problems.append((number, f"scan_totals: status {record.get('status')!r}, but {source!r} {'has' if current['opened'] else 'has no'} scan_file record"))
            current = None
    if records and records[-1][1].get("type") != "scan_summary":
        problems.append((records[-1][0], "no scan_summary record at the end"))
    return problems


def validate_file(name, data, schemas, partial=False):
    """Problems as (line number, message), and the number of records read."""
    problems = []
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()                 # the text after the final newline
    elif lines and partial:
        lines.pop()                 # the line the run was writing when it was killed
    elif lines:
        problems.append((len(lines), "last line does not end with a newline (output cut short?)"))
    if not lines:
        problems.append((1, "empty file: expected a stream record, frame records and a summary record"))
    elif lines[0].startswith(b'{"type":"scan"'):
        try:
            records = [(n, parse_line(raw.decode("utf-8"))) for n, raw in enumerate(lines, start=1)]
        except (UnicodeDecodeError, ValueError) as e:
            return problems + [(1, f"not a scan index of JSON records: {e}")], 0
        return problems + validate_index(records, schemas), len(records)

    records = 0
    last_type = None
    last_line = last_record_line = 0
    next_index = 0
    last_pts = None
    confirmation = CodeConfirmationCheck()
    counts = Counts()
    analyzer_backends = {}
    mismatched_analyzers = set()
    skipped = False                 # a line that could not be read as a record: counts are unknown
    pending_cut = None              # a cut record's index: the next frame record must be that frame
    cuts = []                       # every cut's index: no track may run across one
    for number, raw in enumerate(lines, start=1):
        last_line = number
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            problems.append((number, f"not UTF-8: {e}"))
            skipped = True
            continue
        if not text.strip():
            problems.append((number, "empty line"))
            skipped = True
            continue
        try:
            record = parse_line(text)
        except json.JSONDecodeError as e:
            problems.append((number, f"not valid JSON: {e.msg} at column {e.colno}"))
            skipped = True
            continue
        except ValueError as e:
            problems.append((number, f"not a JSON record: {e}"))
            skipped = True
            continue
        if not isinstance(record, dict):
            problems.append((number, f"not a JSON object but {type(record).__name__}"))
            skipped = True
            continue
        records += 1
        last_record_line = number
        record_type = record.get("type")
        problems += [(number, p) for p in schema_problems(record, schemas)]
        if record_type not in schemas:
            skipped = True

        if records == 1:
            if record_type != "stream":
                problems.append((number, f"first record is {record_type!r}, expected the stream record"))
        elif record_type == "stream":
            problems.append((number, "stream record after the first line"))
        if last_type == "summary":
            problems.append((number, f"{record_type!r} record after the summary record"))
        last_type = record_type

        if record_type == "stream":
            analyzers = record.get("analyzers")
            if isinstance(analyzers, dict):
                for kind in ("faces", "codes"):
                    if isinstance(analyzers.get(kind), dict):
                        analyzer_backends[kind] = analyzers[kind].get("backend")
        elif record_type == "frame":
            index = record.get("index")
            if pending_cut is not None and index != pending_cut:
                problems.append((number, f"frame {index} follows the cut record of frame {pending_cut}"))
            pending_cut = None
            if isinstance(index, int) and not isinstance(index, bool):
                if counts.frames == 0 and not skipped:
                    next_index = index      # a run from --start numbers its frames by stream position
                if skipped and index > next_index:
                    pass            # the frames in between may be on the unreadable lines
                elif index != next_index:
                    problems.append((number, f"frame index {index}, expected {next_index} (indexes must run on by one, in order)"))
                next_index = max(next_index, index + 1)   # one report per frame out of place
            else:
                next_index += 1
            pts = record.get("pts")
            if isinstance(pts, int) and not isinstance(pts, bool):
                if last_pts is not None and pts <= last_pts:
                    problems.append((number, f"frame pts {pts} is not after the previous frame's {last_pts} (frames must be in presentation order)"))
                last_pts = pts
            status = record.get("status")
            if isinstance(status, dict):
                for kind, backend in analyzer_backends.items():
                    if kind in status and (status[kind] == "off") != (backend == "off") and kind not in mismatched_analyzers:
                        mismatched_analyzers.add(kind)   # reported once, at the first frame
                        problems.append((number, f"frame: status.{kind} is {status[kind]!r} but the stream record's {kind} backend is {backend!r}"))
            counts.add(record)
            problems += [(number, p) for p in confirmation.frame(record)]
        elif record_type in ("cut", "discontinuity"):
            # A discontinuity (clock jump, size change, reconnection) ends tracks as a cut does.
            if pending_cut is not None:
                problems.append((number, f"{record_type} record after the cut or discontinuity record of frame {pending_cut}, before any frame"))
            pending_cut = record.get("index")
            cuts.append(pending_cut)
            if record_type == "discontinuity":
                counts.discontinuities += 1
        elif record_type == "track":
            counts.tracks += 1
            first, last = record.get("first_frame"), record.get("last_frame")
            if isinstance(first, int) and isinstance(last, int):
                crossed = [c for c in cuts if isinstance(c, int) and first < c <= last]
                if crossed:
                    problems.append((number, f"track {record.get('id')} (frames {first}-{last}) runs across the cut at frame {crossed[0]}"))
            problems += [(number, p) for p in confirmation.track(record)]
        elif record_type == "summary":
            if not skipped:
                problems += [(number, p) for p in counts.mismatches(record)]

    if records and last_type != "summary" and not partial:
        problems.append((last_line, f"no summary record at the end (last record: {last_type!r} on line {last_record_line}); output cut short?"))
    return problems, records


def validate_messages(data, schemas):
    """[(line, problem)], record count: each line one record against its type's schema."""
    problems, records = [], 0
    for number, raw in enumerate(data.splitlines(), start=1):
        try:
            record = parse_line(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            problems.append((number, f"not a JSON record: {e}"))
            continue
        records += 1
        problems += [(number, p) for p in schema_problems(record, schemas)]
    return problems, records


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--schemas", metavar="DIR", default=os.path.join(here, "..", "Schemas"),
                    help="folder with the *.schema.json files (default: ../Schemas beside this script)")
    ap.add_argument("--partial", action="store_true",
                    help="a killed run's output: ignore a last line cut short and a missing summary")
    ap.add_argument("--messages", action="store_true",
                    help="each line a record on its own (capture --publish's MQTT payloads): its schema and key order only")
    ap.add_argument("files", nargs="+", metavar="FILE.jsonl", help="JSON Lines output; - for standard input")
    args = ap.parse_args()
    try:
        schemas = load_schemas(args.schemas)
    except (OSError, ValueError) as e:
        sys.exit(f"validate_records.py: cannot load the schemas: {e}")
    except Exception as e:  # jsonschema.SchemaError
        sys.exit(f"validate_records.py: invalid schema: {e}")

    failed = False
    for path in args.files:
        name = "<stdin>" if path == "-" else path
        try:
            if path == "-":
                data = sys.stdin.buffer.read()
            else:
                with open(path, "rb") as f:
                    data = f.read()
        except OSError as e:
            print(f"{name}: cannot read: {e.strerror}")
            failed = True
            continue
        if args.messages:
            problems, records = validate_messages(data, schemas)
        else:
            problems, records = validate_file(name, data, schemas, args.partial)
        if problems:
            failed = True
            problems.sort(key=lambda p: p[0])
            for number, message in problems[:MAX_PROBLEMS]:
                print(f"{name}:{number}: {message}")
            if len(problems) > MAX_PROBLEMS:
                print(f"{name}: ... and {len(problems) - MAX_PROBLEMS} more problems")
        else:
            print(f"{name}: {records} records valid")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
