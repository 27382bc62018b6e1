#!/usr/bin/env python3
"""Draws the docket plugin's icon, plugin/icon.png: a 512x512 RGBA PNG (standard library only).

A rounded dark-blue square holding a docket: a white card with three ruled lines, the first
ticked. `python3 plugin/icon.py` writes the file; `--check` exits 1 when the file's pixels are
not what this script draws (tests/agents.rs runs it).
"""
import struct
import sys
import zlib
from pathlib import Path

SIZE = 512
OUT = Path(__file__).with_name("icon.png")

BG = (30, 58, 95, 255)
CARD = (248, 246, 240, 255)
LINE = (120, 134, 156, 255)
TICK = (46, 160, 67, 255)
CLEAR = (0, 0, 0, 0)


def inside_rounded(x, y, x0, y0, x1, y1, r):
    """Whether pixel centre (x, y) lies in the rectangle [x0, x1) x [y0, y1) with corners of radius r."""
    px, py = x + 0.5, y + 0.5
    if not (x0 <= px < x1 and y0 <= py < y1):
        return False
    cx = min(max(px, x0 + r), x1 - r)
    cy = min(max(py, y0 + r), y1 - r)
    return (px - cx) ** 2 + (py - cy) ** 2 <= r * r


def near_segment(x, y, ax, ay, bx, by, half_width):
    px, py = x + 0.5, y + 0.5
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    qx, qy = ax + t * dx, ay + t * dy
    return (px - qx) ** 2 + (py - qy) ** 2 <= half_width * half_width


def pixel(x, y):
    if not inside_rounded(x, y, 0, 0, SIZE, SIZE, 96):
        return CLEAR
    if near_segment(x, y, 148, 188, 178, 218, 13) or near_segment(x, y, 178, 218, 232, 150, 13):
        return TICK
    if inside_rounded(x, y, 112, 96, 400, 416, 28):
        for top, left in ((176, 260), (256, 148), (336, 148)):
            if inside_rounded(x, y, left, top, 364, top + 24, 12):
                return LINE
        return CARD
    return BG


def pixels():
    rows = bytearray()
    for y in range(SIZE):
        rows.append(0)  # filter: none
        for x in range(SIZE):
            rows.extend(pixel(x, y))
    return bytes(rows)


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png(raw):
    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def decoded(path):
    """The raw scanlines of a PNG this script wrote (one IDAT chunk)."""
    data = path.read_bytes()
    at, idat = 8, b""
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        if kind == b"IDAT":
            idat += data[at + 8 : at + 8 + length]
        at += 12 + length
    return zlib.decompress(idat)


def main():
    raw = pixels()
    if "--check" in sys.argv[1:]:
        if not OUT.exists() or decoded(OUT) != raw:
            print(f"{OUT} is not what plugin/icon.py draws; run `python3 plugin/icon.py`.", file=sys.stderr)
            return 1
        return 0
    OUT.write_bytes(png(raw))
    return 0


if __name__ == "__main__":
    sys.exit(main())
