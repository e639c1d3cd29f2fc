#!/usr/bin/env python3
"""Checks a screenshot: a PNG of the expected size that is not blank.

Usage: check_png.py FILE WIDTH HEIGHT
Decodes the PNG with the standard library only (zlib + the five scanline filters), then
requires many distinct colours overall, a varied 3D view (left part) and a panel (right
part) that differs from the view.
"""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            if depth != 8 or color not in (2, 6):
                sys.exit(f"{path}: unexpected PNG format (depth {depth}, colour type {color})")
            channels = 4 if color == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def main():
    path, want_w, want_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    width, height, ch, rows = decode(path)
    if (width, height) != (want_w, want_h):
        sys.exit(f"{path}: {width}x{height}, expected the window's {want_w}x{want_h}")

    def colors(x0, x1, y0, y1, step=3):
        return {rows[y][x * ch:x * ch + 3] for y in range(y0, y1, step) for x in range(x0, x1, step)}

    total = colors(0, width, 0, height, 4)
    view = colors(0, width // 2, height // 4, height * 3 // 4)
    panel = colors(width - width // 5, width, 0, height // 2)
    if len(total) < 200 or len(view) < 50:
        sys.exit(f"{path}: looks blank ({len(total)} colours, {len(view)} in the 3D view)")
    if len(panel) < 5:
        sys.exit(f"{path}: no panel on the right ({len(panel)} colours)")
    print(f"{path}: {width}x{height}, {len(total)} colours, {len(view)} in the view, {len(panel)} in the panel: ok")


main()
