"""Fetching and packing helpers for prepare.py."""
import io
import os
import tarfile
import urllib.request

from PIL import Image


def fetch(url, cache="/data/raw"):
    path = os.path.join(cache, os.path.basename(url))
    if not os.path.exists(path):
        urllib.request.urlretrieve(url, path)
    return path


def resize_and_pack(paths, out_dir, shard, size):
    name = os.path.join(out_dir, f"shard-{shard:05d}.tar")
    with tarfile.open(name, "w") as tar:
        for i, path in enumerate(paths):
            img = Image.open(path).convert("RGB").resize((size, size))
            buf = io.BytesIO()
            img.save(buf, format="JPEG", quality=90)
            info = tarfile.TarInfo(f"{i:06d}.jpg")
            info.size = buf.tell()
            buf.seek(0)
            tar.addfile(info, buf)
