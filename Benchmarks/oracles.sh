#!/usr/bin/env bash
# Creates .venv-oracles with the independent programs used by benchmarks and oracle tests
# (FFmpeg 9 via imageio-ffmpeg, libmediainfo via pymediainfo, libheif 1.23 via pillow-heif, PyAV, OpenCV via opencv-python-headless).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv-oracles/bin/python ]; then python3 -m venv .venv-oracles; fi
.venv-oracles/bin/pip install -q imageio-ffmpeg==0.8.1 pymediainfo==7.0.1 pillow-heif==1.8.1 av==18.1.0 opencv-python-headless==4.14.0.94 >&2
.venv-oracles/bin/python -c "import imageio_ffmpeg; print(imageio_ffmpeg.get_ffmpeg_exe())"
