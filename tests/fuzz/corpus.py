"""Malformed hand-history files, made by mutating real samples and the simulator's output.

Every case names the hands that must survive it (``keep``): the hands of the
records the mutation did not touch.  Record-level mutations break one hand
the ways rooms and careless users do (wrong types, numbers too big for any
column, lone surrogates, JSON nested thousands deep, 10 MB strings, 14-card
rows, bad and duplicate cards, truncation, byte flips); file-level ones break
the container (encodings, byte-order marks, blank padding, a broken first
line, junk, mixed formats, damaged zips).  Deterministic for a seed.
"""

from __future__ import annotations

import copy
import io
import json
import random
import re
import sqlite3
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ofc_stats.engine.cards import format_card
from parsers.app_json import dumps_app
from parsers.open_format import dumps
from tests.handgen import random_records
from tests.shared_samples import APPS
from tests.swcgen import FPDB_DDL, raw_json, snapshots

DEEP = 3000  # nesting levels: past Python's recursion limit
HUGE = 10 << 20  # a 10 MB string


@dataclass(frozen=True)
class Record:
    """One hand's text in a file, and the hand key it must be stored under."""

    text: bytes
    key: str


@dataclass(frozen=True)
class Base:
    """A file made of records: a header, the records, in one format."""

    name: str
    format: str  # the format the file is in (what auto-detection should find)
    ext: str
    records: tuple[Record, ...]
    header: bytes = b""
    json_records: bool = True  # each record is one JSON object (mutate it as JSON)

    def join(self, records: list[bytes]) -> bytes:
        return self.header + b"".join(records)


@dataclass(frozen=True)
class Case:
    name: str
    data: bytes
    keep: frozenset[str]
    how: str
    format: str


# ---------------------------------------------------------------- the bases


def open_base(seed: int, table: str) -> Base:
    records = random_records(10, seed)
    out = []
    for record in records:
        text = dumps(record).replace(f'"table":"t{seed}"', f'"table":"{table}"')
        key = record.hand_key.replace(f":t{seed}:", f":{table}:")
        out.append(Record(text.encode() + b"\n", key))
    return Base(f"open-{table}", "open", "jsonl", tuple(out))


def app_sim_base(seed: int, table: str) -> Base:
    out = []
    for record in random_records(6, seed):
        text = dumps_app(record).replace(f'"roomId": "t{seed}"', f'"roomId": "{table}"')
        key = f"app-json:sim:{table}:{record.room_hand_id}"
        out.append(Record(text.encode(), key))
    return Base(f"app-sim-{table}", "app-json", "hh", tuple(out))


def app_real_bases(count: int, rng: random.Random) -> list[Base]:
    """Real app files, each object's roomId made unique to the case (so keys are too)."""
    if not APPS.is_dir():
        return []
    files = sorted(p for p in APPS.rglob("*.hh") if p.stat().st_size < 60_000)
    bases = []
    for number, path in enumerate(rng.sample(files, min(count, len(files)))):
        text = path.read_text(encoding="utf-8")
        objects = [o for o in re.split(r"\n\s*\n(?=\{)", text) if o.strip()]
        records = []
        for index, obj in enumerate(objects):
            data = json.loads(obj)
            table = f"real{number}-{index}"
            obj = re.sub(r'"roomId": "[^"]*"', f'"roomId": "{table}"', obj)
            data["roomId"] = table
            ((hand_id, _),) = data["handData"].items()
            app = data.get("appName") or "Ppp"
            records.append(Record(obj.encode() + b"\n\n\n", f"app-json:{app}:{table}:{hand_id}"))
        bases.append(Base(f"app-real{number}", "app-json", "hh", tuple(records)))
    return bases


def swc_base(seed: int, table: int) -> Base:
    out = []
    for index, record in enumerate(random_records(5, seed)):
        lines = snapshots(record, gi=1000 + index, ti=table)
        out.append(Record(("\n".join(lines) + "\n").encode(), f"swc:SwC:{table}:{1000 + index}"))
    return Base(f"swc-{table}", "swc", "jsonl", tuple(out))


def chat_base(table: str) -> Base:
    header = f"2026-08-14 18:40:00 table={table} Dealer: New game started (8 hands)\n"
    out = []
    for hand in range(1, 9):
        minute = 40 + hand
        text = (
            f"2026-08-14 18:{minute}:01 table={table} Dealer: New hand started ({hand} of 8)\n"
            f"2026-08-14 18:{minute}:50 table={table} Dealer: Hand #{hand} finished - "
            f"kestrel: +{hand}, marlow: -{hand}\n"
        )
        key = f"swc-chat:SwC:{table}:2026-08-14 18:40:00#{hand}"
        out.append(Record(text.encode(), key))
    return Base(f"chat-{table}", "swc-chat", "txt", tuple(out), header.encode(), False)


def fpdb_base(seed: int) -> Base:
    out = []
    for record in random_records(5, seed):
        raw = raw_json(record)
        raw["table_id"] = f"fp{seed}"
        out.append(
            Record(json.dumps(raw).encode(), f"fpdb:SealsWithClubs:fp{seed}:{raw['hand_id']}")
        )
    return Base(f"fpdb-{seed}", "fpdb", "db3", tuple(out))


def fpdb_bytes(raws: list[bytes]) -> bytes:
    """An fpdb-3 database whose HttpOFCHands rows hold these rawJson texts."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "f.db3"
        connection = sqlite3.connect(path)
        connection.executescript(FPDB_DDL)
        for number, raw in enumerate(raws, start=1):
            connection.execute(
                "INSERT INTO HttpOFCHands (site, siteHandNo, tableName, rawJson) "
                "VALUES ('SealsWithClubs', ?, 't-9', ?)",
                (str(number), raw.decode("utf-8", "surrogatepass")),
            )
        connection.commit()
        connection.close()
        return path.read_bytes()


# ---------------------------------------------------------------- record mutations

Poison = Callable[[Any, random.Random], Any]
_MARK = "__FUZZ_DEEP__"


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*prefix, key)
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*prefix, index)
            yield from _paths(item, (*prefix, index))


def _set(value: Any, path: tuple[Any, ...], new: Any) -> None:
    for step in path[:-1]:
        value = value[step]
    if new is _DELETE:
        del value[path[-1]]
    else:
        value[path[-1]] = new


_DELETE = object()
WRONG_VALUES: list[Any] = [
    5,
    -1,
    1000,
    "x",
    "",
    [],
    {},
    None,
    True,
    10**400,
    -(10**400),
    float("inf"),
    float("nan"),
    "\ud800",
    _MARK,
    [1, [2, [3]]],
    {"a": {"b": None}},
    _DELETE,
    '=HYPERLINK("http://x","\x1b]0;pwned\x07")',
]


def wrong_field(data: Any, rng: random.Random) -> str:
    paths = list(_paths(data))
    path = rng.choice(paths)
    value = rng.choice(WRONG_VALUES)
    if isinstance(value, (list, dict)):
        # a fresh copy: the list's own [] or {} put into one record and edited there by a
        # later breakage would reach every record given it after, and could hold itself
        value = copy.deepcopy(value)
    _set(data, path, value)
    return f"{'/'.join(map(str, path))} = {str(value)[:30]!r}"


def _dump(data: Any, pretty: bool) -> str:
    text = json.dumps(data, indent=4 if pretty else None, allow_nan=True)
    return text.replace(json.dumps(_MARK), "[" * DEEP + "]" * DEEP)


def json_record_mutations(fmt: str) -> list[tuple[str, Callable[[Any, random.Random], str]]]:
    """Named breakages of one decoded record (they edit it in place, return a detail)."""
    common: list[tuple[str, Callable[[Any, random.Random], str]]] = [
        ("wrong-field", wrong_field),
        ("wrong-field-2", lambda d, r: wrong_field(d, r) + "; " + wrong_field(d, r)),
    ]
    if fmt == "app-json":
        return [
            *common,
            ("order-1000", lambda d, r: _app_seat(d, "orderIndex", 1000)),
            ("order-string", lambda d, r: _app_seat(d, "orderIndex", "1")),
            ("seat-not-object", lambda d, r: _app_seats(d).__setitem__(0, 7) or "seat 0 = 7"),
            ("result-400-digits", lambda d, r: _app_seat(d, "result", 10**400)),
            ("name-surrogate", lambda d, r: _app_seat(d, "playerName", "a\udc80b")),
            ("name-formula", lambda d, r: _app_seat(d, "playerName", "=cmd|' /C calc'!A0")),
            ("rows-14", lambda d, r: _app_seat(d, "rows", _app_seats(d)[0]["rows"] + " 2c1")),
            ("bad-card", lambda d, r: _app_seat(d, "rows", "Zz1/" + "/".join(["", ""]))),
            ("deep", lambda d, r: _app_seat(d, "dead", _MARK)),
            ("huge-name", lambda d, r: _app_seat(d, "playerName", "n" * HUGE)),
            (
                "date-bad",
                lambda d, r: d.__setitem__("endDateTime", "2026-02-30 10:00:00") or "date",
            ),
        ]
    if fmt == "open":
        return [
            *common,
            ("seat-not-object", lambda d, r: d["seats"].__setitem__(0, "x") or "seat"),
            ("streets-200", _open_streets_200),
            (
                "played-at-bad",
                lambda d, r: d.__setitem__("played_at", "2026-13-45T10:00:00") or "d",
            ),
            ("stakes-1e400", lambda d, r: d.__setitem__("stakes", 10**400) or "stakes"),
            ("player-surrogate", lambda d, r: d["seats"][0].__setitem__("player", "\ud800") or "p"),
            ("hand-id-object", lambda d, r: d.__setitem__("hand_id", {"a": 1}) or "hand_id"),
            ("deep", lambda d, r: d.__setitem__("currency", _MARK) or "deep"),
            ("top-4", _open_top_4),
        ]
    if fmt == "fpdb":
        return [
            *common,
            ("players-string", lambda d, r: d.__setitem__("players", "ana") or "players"),
            ("variant-list", lambda d, r: d.__setitem__("variant", ["ofcp"]) or "variant"),
            ("result-string", lambda d, r: d.__setitem__("result", "won") or "result"),
            ("rounds-300", _fpdb_rounds_300),
            ("deep", lambda d, r: d.__setitem__("site", _MARK) or "deep"),
        ]
    return common  # swc: a snapshot line


def _app_seats(data: Any) -> list[Any]:
    ((_, seats),) = data["handData"].items()
    return seats  # type: ignore[no-any-return]


def _app_seat(data: Any, key: str, value: Any) -> str:
    _app_seats(data)[0][key] = value
    return f"seat 0 {key} = {str(value)[:30]!r}"


def _open_streets_200(data: Any, rng: random.Random) -> str:
    seat = data["seats"][0]
    seat["streets"] = seat["streets"] + [{"cards": [], "to": []}] * 200
    seat["streets"][-1] = {"cards": ["2c"], "to": ["discard"]}
    return "200 more streets"


def _open_top_4(data: Any, rng: random.Random) -> str:
    streets = data["seats"][0]["streets"]
    streets[0] = {"cards": streets[0]["cards"], "to": ["top"] * len(streets[0]["cards"])}
    return "5 cards to the top"


def _fpdb_rounds_300(data: Any, rng: random.Random) -> str:
    player = data["players"][0]["name"]
    extra = [
        {"round": 100 + n, "player": player, "placed": {"top": [format_card(n % 52)]}}
        for n in range(300)
    ]
    data["rounds"] = data["rounds"] + extra
    return "300 rounds"


def text_record_mutations() -> list[tuple[str, Callable[[bytes, random.Random], bytes]]]:
    """Breakages of one record's bytes, whatever its format."""

    def truncate(text: bytes, rng: random.Random) -> bytes:
        return text[: rng.randrange(1, max(len(text) - 1, 2))] + b"\n"

    def flip(text: bytes, rng: random.Random) -> bytes:
        data = bytearray(text)
        for _ in range(3):
            data[rng.randrange(len(data) - 1)] = rng.randrange(256)
        return bytes(data)

    def drop_line(text: bytes, rng: random.Random) -> bytes:
        lines = text.split(b"\n")
        if len(lines) > 2:
            del lines[rng.randrange(len(lines) - 1)]
        return b"\n".join(lines)

    def cut_before_dash(text: bytes, rng: random.Random) -> bytes:
        return text.split(b" - ", 1)[0] + b"\n"

    def no_scores(text: bytes, rng: random.Random) -> bytes:
        return text.split(b" - ", 1)[0] + b" - \n"

    def bad_date(text: bytes, rng: random.Random) -> bytes:
        return text.replace(b"2026-08-14", b"2026-02-30")

    def digits(text: bytes, rng: random.Random) -> bytes:
        return text.replace(b": +", b": +" + b"9" * 400, 1)

    def twice(text: bytes, rng: random.Random) -> bytes:
        return text.replace(b"marlow:", b"kestrel:")

    def latin1(text: bytes, rng: random.Random) -> bytes:
        return text.replace(b"kestrel", "késtrel".encode("latin-1"))

    return [
        ("truncate", truncate),
        ("flip", flip),
        ("drop-line", drop_line),
        ("cut-before-dash", cut_before_dash),
        ("no-scores", no_scores),
        ("bad-date", bad_date),
        ("digits-400", digits),
        ("name-twice", twice),
        ("latin1-name", latin1),
    ]


# ---------------------------------------------------------------- file mutations


def file_mutations() -> list[tuple[str, Callable[[Base, random.Random], tuple[bytes, set[int]]]]]:
    """(name, make) with make -> (bytes, indexes of the records that must survive)."""

    def everything(base: Base) -> set[int]:
        return set(range(len(base.records)))

    def encoded(
        encoding: str, bom: bytes
    ) -> Callable[[Base, random.Random], tuple[bytes, set[int]]]:
        def make(base: Base, rng: random.Random) -> tuple[bytes, set[int]]:
            text = base.join([r.text for r in base.records]).decode("utf-8")
            return bom + text.encode(encoding), everything(base)

        return make

    def utf8_bom(base: Base, rng: random.Random) -> tuple[bytes, set[int]]:
        return b"\xef\xbb\xbf" + base.join([r.text for r in base.records]), everything(base)

    def blank_prefix(base: Base, rng: random.Random) -> tuple[bytes, set[int]]:
        return b"\n" * 70_000 + base.join([r.text for r in base.records]), everything(base)

    def broken_first(base: Base, rng: random.Random) -> tuple[bytes, set[int]]:
        junk = b"{broken\n" if base.format != "swc-chat" else b"2026-08-14 garbage\n"
        return junk + base.join([r.text for r in base.records]), everything(base)

    def truncate(base: Base, rng: random.Random) -> tuple[bytes, set[int]]:
        data = base.join([r.text for r in base.records])
        cut = rng.randrange(len(base.header) + 1, len(data))
        keep, end = set(), len(base.header)
        for index, record in enumerate(base.records):
            end += len(record.text)
            if end <= cut:
                keep.add(index)
        if base.format == "swc" and keep:
            keep.discard(max(keep))  # a capture cut mid-hand may rebuild the hand before it
        return data[:cut], keep

    def flips(base: Base, rng: random.Random) -> tuple[bytes, set[int]]:
        data = bytearray(base.join([r.text for r in base.records]))
        spots = sorted(rng.randrange(len(base.header), len(data)) for _ in range(4))
        for spot in spots:
            data[spot] = rng.randrange(256)
        keep, start = set(), len(base.header)
        hit: set[int] = set()
        for index, record in enumerate(base.records):
            end = start + len(record.text)
            if any(start <= spot < end for spot in spots):
                hit |= {index - 1, index, index + 1}  # a broken separator joins neighbours
            start = end
        keep = everything(base) - hit
        return bytes(data), keep

    def latin1(base: Base, rng: random.Random) -> tuple[bytes, set[int]]:
        texts = [r.text.decode("utf-8").encode("latin-1", "replace") for r in base.records]
        keep = {i for i, r in enumerate(base.records) if r.text.isascii()}
        return base.join(texts), keep

    def junk(base: Base, rng: random.Random) -> tuple[bytes, set[int]]:
        return bytes(rng.randrange(256) for _ in range(5000)), set()

    def huge_line(base: Base, rng: random.Random) -> tuple[bytes, set[int]]:
        texts = [r.text for r in base.records]
        # between two hands; after a lone one (every other seed's corpus stays as it was)
        at = rng.randrange(1, len(texts)) if len(texts) > 1 else 1
        texts.insert(at, b"x" * HUGE + b"\n\n")
        return base.join(texts), everything(base)

    def mixed(base: Base, rng: random.Random) -> tuple[bytes, set[int]]:
        other = open_base(99, "mixed") if base.format != "open" else chat_base("mixed")
        texts = [r.text for r in base.records] + [r.text for r in other.records[:3]]
        return base.join(texts), everything(base) if base.format != "swc-chat" else set()

    def grown(base: Base, rng: random.Random) -> tuple[bytes, set[int]]:
        """Cut inside the last record, no newline after: a file still being written."""
        texts = [r.text for r in base.records]
        last = texts[-1]
        texts[-1] = last[: max(1, len(last) // 2)].rstrip(b"\n")
        return base.join(texts), everything(base) - {len(texts) - 1}

    return [
        ("utf-16", encoded("utf-16-le", b"\xff\xfe")),
        ("utf-16be", encoded("utf-16-be", b"\xfe\xff")),
        ("utf-32", encoded("utf-32-le", b"\xff\xfe\x00\x00")),
        ("utf-8-bom", utf8_bom),
        ("blank-70k", blank_prefix),
        ("broken-first-line", broken_first),
        ("truncate", truncate),
        ("byte-flips", flips),
        ("latin-1", latin1),
        ("junk", junk),
        ("huge-line", huge_line),
        ("mixed", mixed),
        ("still-written", grown),
    ]


def zip_cases(base: Base, data: bytes) -> list[tuple[str, bytes, bool]]:
    """(how, archive, readable) for a whole base file in a zip: good, bad CRC, corrupt, encrypted."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{base.name}.{base.ext}", data)
    good = buffer.getvalue()
    header = good.index(b"PK\x03\x04")
    name_len = int.from_bytes(good[header + 26 : header + 28], "little")
    extra_len = int.from_bytes(good[header + 28 : header + 30], "little")
    payload = header + 30 + name_len + extra_len
    crc = bytearray(good)
    crc[header + 14] ^= 0xFF  # the local header's CRC-32
    central = good.index(b"PK\x01\x02")
    crc[central + 16] ^= 0xFF  # and the central directory's
    corrupt = bytearray(good)
    for offset in range(payload + 2, min(payload + 40, len(good) - 100)):
        corrupt[offset] ^= 0x5A
    encrypted = bytearray(good)
    encrypted[header + 6] |= 1
    encrypted[central + 8] |= 1
    return [
        ("zip", good, True),
        ("zip-bad-crc", bytes(crc), False),
        ("zip-corrupt-deflate", bytes(corrupt), False),
        ("zip-encrypted", bytes(encrypted), False),
    ]


# ---------------------------------------------------------------- the corpus


def bases(rng: random.Random) -> list[Base]:
    out = [open_base(1, "o1"), open_base(2, "o2"), app_sim_base(3, "a3"), swc_base(4, 40)]
    out += [swc_base(5, 50), chat_base("c1"), fpdb_base(6)]
    out += app_real_bases(3, rng)
    return out


def _json_record_case(
    base: Base,
    index: int,
    name: str,
    mutate: Callable[[Any, random.Random], str],
    rng: random.Random,
) -> tuple[bytes, str] | None:
    record = base.records[index]
    if base.format == "swc":
        lines = record.text.decode().splitlines()
        line = rng.randrange(len(lines))
        data = json.loads(lines[line])
        detail = mutate(data, rng)
        lines[line] = _dump(data, pretty=False)
        return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass"), detail
    data = json.loads(record.text)
    try:
        detail = mutate(data, rng)
    except (KeyError, IndexError, TypeError):
        return None
    pretty = base.format == "app-json"
    text = _dump(data, pretty)
    tail = b"\n\n\n" if pretty else (b"" if base.format == "fpdb" else b"\n")
    return text.encode("utf-8", "surrogatepass") + tail, detail


def _file(base: Base, texts: list[bytes]) -> bytes:
    if base.format == "fpdb":
        return fpdb_bytes(texts)
    return base.join(texts)


def corpus(seed: int = 0, rounds: int = 2) -> Iterator[Case]:
    """The cases: each base broken record by record and as a whole, ``rounds`` times."""
    rng = random.Random(seed)
    number = 0
    for base in bases(rng):
        texts = [r.text for r in base.records]

        def case(data: bytes, keep: set[int], how: str, ext: str = "", base: Base = base) -> Case:
            nonlocal number
            number += 1
            kept = frozenset(base.records[i].key for i in keep if 0 <= i < len(base.records))
            name = f"{number:04d}-{base.name}-{how}.{ext or base.ext}"
            return Case(name, data, kept, how, base.format)

        yield case(_file(base, texts), set(range(len(texts))), "intact")
        for _ in range(rounds):
            if base.json_records:
                for name, mutate in json_record_mutations(base.format):
                    index = rng.randrange(len(texts))
                    made = _json_record_case(base, index, name, mutate, rng)
                    if made is None:
                        continue
                    broken, _detail = made
                    others = set(range(len(texts))) - {index}
                    mutated = [*texts[:index], broken, *texts[index + 1 :]]
                    yield case(_file(base, mutated), others, f"{name}[{index}]")
            for name, change in text_record_mutations():
                if base.format == "fpdb":
                    continue
                if base.format != "swc-chat" and name in {
                    "cut-before-dash",
                    "no-scores",
                    "bad-date",
                    "digits-400",
                    "name-twice",
                    "latin1-name",
                }:
                    continue
                index = rng.randrange(len(texts))
                mutated = [*texts[:index], change(texts[index], rng), *texts[index + 1 :]]
                others = set(range(len(texts))) - {index, index + 1}
                yield case(_file(base, mutated), others, f"{name}[{index}]")
            if base.format == "fpdb":
                data = _file(base, texts)
                for name in ("truncate", "byte-flips"):
                    broken = bytearray(data)
                    if name == "truncate":
                        broken = broken[: rng.randrange(100, len(broken))]
                    else:
                        for _ in range(8):
                            broken[rng.randrange(100, len(broken))] = rng.randrange(256)
                    yield case(bytes(broken), set(), name)
                continue
            for name, make in file_mutations():
                data, keep = make(base, rng)
                yield case(data, keep, name)
        for how, archive, readable in zip_cases(base, _file(base, texts)):
            yield case(archive, set(range(len(texts))) if readable else set(), how, "zip")
