"""Images for the read tool: sniffed by magic bytes, resized to fit what providers accept.

Resizing needs Pillow (the `images` extra). Without it, images already in a format providers
take (PNG, JPEG, GIF, WebP) and under the size limit are sent as they are; anything else gets a
text note saying how to enable resizing.
"""

from __future__ import annotations

import base64
import io
import struct
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from pith.ai import ImageContent

__all__ = ["IMAGE_SNIFF_BYTES", "ProcessedImage", "detect_image_mime", "process_image"]

IMAGE_SNIFF_BYTES = 4100
MAX_WIDTH = 2000
MAX_HEIGHT = 2000
MAX_BASE64_BYTES = int(4.5 * 1024 * 1024)
JPEG_QUALITY = 80
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_INLINE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}


@dataclass
class ProcessedImage:
    image: ImageContent | None
    hints: list[str] = field(default_factory=list)
    message: str = ""
    """Why there is no image, when `image` is None."""


def detect_image_mime(head: bytes) -> str | None:
    """The MIME type of a supported image from its first bytes, or None."""
    if head.startswith(b"\xff\xd8\xff"):
        return None if len(head) > 3 and head[3] == 0xF7 else "image/jpeg"
    if head.startswith(_PNG_SIGNATURE):
        return "image/png" if _is_png(head) and not _is_animated_png(head) else None
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    if head.startswith(b"BM") and _is_bmp(head):
        return "image/bmp"
    return None


def _is_png(head: bytes) -> bool:
    return len(head) >= 16 and struct.unpack(">I", head[8:12])[0] == 13 and head[12:16] == b"IHDR"


def _is_animated_png(head: bytes) -> bool:
    offset = len(_PNG_SIGNATURE)
    while offset + 8 <= len(head):
        (length,) = struct.unpack(">I", head[offset : offset + 4])
        kind = head[offset + 4 : offset + 8]
        if kind == b"acTL":
            return True
        if kind == b"IDAT":
            return False
        following = offset + 8 + length + 4
        if following <= offset or following > len(head):
            return False
        offset = following
    return False


def _is_bmp(head: bytes) -> bool:
    if len(head) < 26:
        return False
    (declared_size,) = struct.unpack("<I", head[2:6])
    (pixel_offset,) = struct.unpack("<I", head[10:14])
    (dib_size,) = struct.unpack("<I", head[14:18])
    if declared_size != 0 and declared_size < 26:
        return False
    if pixel_offset < 14 + dib_size:
        return False
    if declared_size != 0 and pixel_offset >= declared_size:
        return False
    if dib_size == 12:
        planes, bits = struct.unpack("<HH", head[22:26])
    elif 40 <= dib_size <= 124:
        if len(head) < 30:
            return False
        planes, bits = struct.unpack("<HH", head[26:30])
    else:
        return False
    return planes == 1 and bits in (1, 4, 8, 16, 24, 32)


def _base64_size(size: int) -> int:
    return -(-size // 3) * 4


def process_image(data: bytes, mime: str, *, auto_resize: bool = True) -> ProcessedImage:
    """An image block (resized when needed) plus hints for the model, or a note why not."""
    try:
        from PIL import Image  # noqa: F401  - optional dependency
    except ImportError:
        return _without_pillow(data, mime)
    return _with_pillow(data, mime, auto_resize)


def _without_pillow(data: bytes, mime: str) -> ProcessedImage:
    if mime in _INLINE_TYPES and _base64_size(len(data)) < MAX_BASE64_BYTES:
        return ProcessedImage(ImageContent(data=base64.b64encode(data).decode(), mime_type=mime))
    reason = "converted" if mime not in _INLINE_TYPES else "resized below the inline size limit"
    return ProcessedImage(
        None,
        message=(
            f"[Image omitted: it must be {reason}, which needs Pillow. "
            "Install it with: pip install 'pith-agent[images]']"
        ),
    )


def _with_pillow(data: bytes, mime: str, auto_resize: bool) -> ProcessedImage:
    from PIL import Image, ImageOps

    hints: list[str] = []
    try:
        with Image.open(io.BytesIO(data)) as opened:
            image = ImageOps.exif_transpose(opened)
            image.load()
    except Exception:
        return ProcessedImage(
            None,
            message="[Image omitted: could not be converted to a supported inline image format.]",
        )
    if mime not in _INLINE_TYPES:
        data = _encode(image, "PNG")
        hints.append(f"[Image converted from {mime} to image/png.]")
        mime = "image/png"
    if not auto_resize:
        return ProcessedImage(
            ImageContent(data=base64.b64encode(data).decode(), mime_type=mime), hints
        )
    width, height = image.size
    if width <= MAX_WIDTH and height <= MAX_HEIGHT and _base64_size(len(data)) < MAX_BASE64_BYTES:
        return ProcessedImage(
            ImageContent(data=base64.b64encode(data).decode(), mime_type=mime), hints
        )
    resized = _fit(image)
    if resized is None:
        return ProcessedImage(
            None,
            message="[Image omitted: could not be resized below the inline image size limit.]",
        )
    encoded, new_mime, new_width, new_height = resized
    if hints and new_mime != "image/png":
        hints[-1] = hints[-1].replace("to image/png", f"to {new_mime}")
    scale = Decimal(width / new_width).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    hints.append(
        f"[Image: original {width}x{height}, displayed at {new_width}x{new_height}. "
        f"Multiply coordinates by {scale} to map to original image.]"
    )
    return ProcessedImage(ImageContent(data=encoded, mime_type=new_mime), hints)


def _encode(image: object, fmt: str, quality: int | None = None) -> bytes:
    from PIL import Image

    assert isinstance(image, Image.Image)
    buffer = io.BytesIO()
    if fmt == "JPEG":
        image.convert("RGB").save(buffer, "JPEG", quality=quality or JPEG_QUALITY)
    else:
        image.save(buffer, "PNG")
    return buffer.getvalue()


def _fit(image: object) -> tuple[str, str, int, int] | None:
    """Smaller PNG or JPEG at the target size; lower JPEG qualities; then shrink by 3/4."""
    from PIL import Image

    assert isinstance(image, Image.Image)
    width, height = image.size
    if width > MAX_WIDTH:
        height, width = round(height * MAX_WIDTH / width), MAX_WIDTH
    if height > MAX_HEIGHT:
        width, height = round(width * MAX_HEIGHT / height), MAX_HEIGHT
    qualities = list(dict.fromkeys([JPEG_QUALITY, 85, 70, 55, 40]))
    while True:
        resized = image.resize((max(1, width), max(1, height)), Image.Resampling.LANCZOS)
        png = base64.b64encode(_encode(resized, "PNG")).decode()
        jpegs = [
            base64.b64encode(_encode(resized, "JPEG", quality)).decode() for quality in qualities
        ]
        preferred = [(jpegs[0], "image/jpeg"), (png, "image/png")]
        if len(png) <= len(jpegs[0]):
            preferred.reverse()
        for data, mime in preferred + [(jpeg, "image/jpeg") for jpeg in jpegs[1:]]:
            if len(data) < MAX_BASE64_BYTES:
                return data, mime, width, height
        if width == 1 and height == 1:
            return None
        width = 1 if width == 1 else max(1, int(width * 0.75))
        height = 1 if height == 1 else max(1, int(height * 0.75))
