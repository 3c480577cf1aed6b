#!/usr/bin/env python3
"""Makes resources/fonts/NotoSansCJKjp-Regular-subset.otf from Debian's fonts-noto-cjk.

The subset holds every character cp932 (Shift-JIS as MMD writes it) can encode, plus Latin-1,
general punctuation and a few symbol blocks: enough for the names MMD models carry, at a
fraction of the full font's size. Run: python3 make_subset.py (needs fonttools).
"""
import subprocess, sys

SOURCE = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"  # face 0 is the JP face

chars = set(range(0x20, 0x7F)) | set(range(0xA0, 0x180))
for lead in list(range(0x81, 0xA0)) + list(range(0xE0, 0xFD)):
    for trail in range(0x40, 0xFD):
        try:
            chars.update(ord(c) for c in bytes([lead, trail]).decode("cp932"))
        except UnicodeDecodeError:
            pass
for lo, hi in [(0x2000, 0x206F), (0x2190, 0x21FF), (0x2200, 0x22FF), (0x2460, 0x24FF), (0x2500, 0x25FF),
               (0x2600, 0x26FF), (0x3000, 0x30FF), (0x31F0, 0x31FF), (0xFF00, 0xFFEF)]:
    chars.update(range(lo, hi + 1))
unicodes = ",".join(f"U+{c:04X}" for c in sorted(chars))
subprocess.run([sys.executable, "-m", "fontTools.subset", SOURCE, "--font-number=0", f"--unicodes={unicodes}",
                "--layout-features=*", "--output-file=NotoSansCJKjp-Regular-subset.otf"], check=True)
