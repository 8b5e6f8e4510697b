"""Draw the site's favicon, a roofline (a slope up to a flat roof), into book/_extra/favicon.ico.

The site links it from every page (``html_favicon`` in _config.yml) and serves it at the root
as ``/favicon.ico``, where browsers look when a page names none. Run it again only to change
the drawing; the file is committed.

    python tools/favicon.py
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "book" / "_extra" / "favicon.ico"
SIZES = (16, 32, 48)
INK = (0, 114, 178, 255)  # the compute colour of rooflinekit.plot (Okabe-Ito blue)


def draw(size: int) -> Image.Image:
    """The roofline on a white rounded square, at ``size`` pixels."""
    scale = 4  # drawn large, then shrunk: smooth edges at 16 px
    big = size * scale
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    pen.rounded_rectangle((0, 0, big - 1, big - 1), radius=big // 6, fill=(255, 255, 255, 255))
    margin, width = big * 0.16, max(scale * 2, round(big * 0.12))
    ridge = (big * 0.55, big * 0.3)
    pen.line([(margin, big - margin), ridge, (big - margin, ridge[1])], fill=INK, width=width, joint="curve")
    return image.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    largest = draw(max(SIZES))
    largest.save(TARGET, sizes=[(s, s) for s in SIZES], append_images=[draw(s) for s in SIZES])
    print(f"wrote {TARGET.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
