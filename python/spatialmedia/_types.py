"""Values the package returns: kinds, stereo parameters in stored units with human views, and reports."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Union


class Status(enum.IntEnum):
    """Status codes of the C ABI (``sm_status``)."""
    OK = 0
    INVALID_ARGUMENT = 1
    INVALID_HANDLE = 2
    IO = 3
    PARSE = 4
    NOT_FOUND = 5
    NOT_APPLICABLE = 6
    UNSUPPORTED = 7
    CANCELLED = 8
    LIMIT = 9
    NO_MEMORY = 10
    INTERNAL = 11
    INVALID_OPTION = 12


class Kind(str, enum.Enum):
    """What a file is (``sm_file_kind``)."""
    OTHER = "other"
    MOVIE = "movie"
    IMAGE = "image"
    HEVC_STREAM = "hevc-stream"


class VideoClass(str, enum.Enum):
    """How a movie carries stereo (``sm_video_classification``)."""
    NO_VIDEO = "no-video"
    MONO = "2d"
    SPATIAL = "spatial-video"
    STEREO_WITHOUT_METADATA = "stereo-mv-hevc-without-spatial-metadata"
    SIDE_BY_SIDE = "frame-packed-side-by-side"
    TOP_BOTTOM = "frame-packed-top-bottom"


_KINDS = {0: Kind.OTHER, 1: Kind.MOVIE, 2: Kind.IMAGE, 3: Kind.HEVC_STREAM}
_HERO_NAMES = {0: "none", 1: "left", 2: "right"}


@dataclass(frozen=True)
class StereoParameters:
    """Stereo parameters in Apple's stored units, with human views.

    For videos these are the stored integers (``vexu``/``hfov``); for photos they are computed from the
    camera intrinsics and extrinsics, so baseline and field of view are floats. A value the file does
    not carry is None.
    """
    baseline_um: Optional[Union[int, float]]
    """Distance between the camera centres in micrometres (``blin``; photos: between the positions)."""
    hfov_millidegrees: Optional[Union[int, float]]
    """Horizontal field of view in 1/1000 degree (``hfov``; photos: 2·atan(W / 2 fx))."""
    disparity: Optional[int]
    """Horizontal disparity adjustment in 1/10000 of the image width (``dadj``)."""
    hero_eye: Optional[str] = None
    """Videos: "left", "right", "none" or a reserved number as text; None without a ``hero`` box."""

    @property
    def baseline_mm(self) -> Optional[float]:
        return None if self.baseline_um is None else self.baseline_um / 1000

    @property
    def hfov_degrees(self) -> Optional[float]:
        return None if self.hfov_millidegrees is None else self.hfov_millidegrees / 1000

    @property
    def disparity_percent(self) -> Optional[float]:
        """Disparity adjustment in percent of the image width."""
        return None if self.disparity is None else self.disparity / 100


@dataclass(frozen=True)
class PhotoEyes:
    """The two images of a spatial photo's ``ster`` group."""
    left_item: int
    right_item: int
    width: int
    height: int


@dataclass(frozen=True)
class EditReport:
    """What an edit did (``sm_edit_video`` / ``sm_edit_photo`` report)."""
    output: str
    changes: list[str]
    warnings: list[str]
    strategy: Optional[str]
    """Videos: "in-place" or "rewrite"; photos: None."""
    bytes_written: Optional[int]
    raw: dict[str, Any] = field(repr=False, default_factory=dict)


@dataclass(frozen=True)
class ConvertReport:
    """What a conversion wrote."""
    output: str
    kind: str
    """"photo" or "video"."""
    bytes_written: Optional[int]
    frames: Optional[int]
    raw: dict[str, Any] = field(repr=False, default_factory=dict)


@dataclass(frozen=True)
class ConcatReport:
    """What ``concat`` wrote."""
    output: str
    bytes_written: int
    frames: int
    segments: int
    audio: list[str]
    seconds: float
    raw: dict[str, Any] = field(repr=False, default_factory=dict)


@dataclass(frozen=True)
class SplitReport:
    input: str
    left_output: str
    right_output: str
    sbs_output: Optional[str]
    ou_output: Optional[str] = None
    raw: dict[str, Any] = field(repr=False, default_factory=dict)


@dataclass(frozen=True)
class Finding:
    """One rule's finding (see Specs/validation.md for every rule id)."""
    rule: str
    severity: str
    """"error", "warning" or "info"."""
    message: str
    title: str = ""
    source: str = ""
    location: str = ""


@dataclass(frozen=True)
class ValidationReport:
    """The report of ``spatial-media validate --json`` for one file."""
    file: str
    kind: str
    spatial: bool
    why_not_spatial: list[str]
    exit_code: int
    """0 no errors or warnings, 1 warnings or errors found, 2 the input could not be read."""
    findings: list[Finding]
    worst: Optional[str] = None
    raw: dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "ValidationReport":
        findings = [Finding(rule=str(f.get("rule", "")), severity=str(f.get("severity", "")),
                            message=str(f.get("message", "")), title=str(f.get("title", "")),
                            source=str(f.get("source", "")), location=str(f.get("location", "")))
                    for f in obj.get("findings", [])]
        return cls(file=str(obj.get("file", "")), kind=str(obj.get("kind", "")), spatial=bool(obj.get("spatial")),
                   why_not_spatial=list(obj.get("why_not_spatial", [])), exit_code=int(obj.get("exit_code", 0)),
                   findings=findings, worst=obj.get("worst"), raw=dict(obj))


@dataclass(frozen=True)
class ValidationInputs:
    """What ``spatial-media validate ARGS…`` checks for some paths (``sm_validation_inputs``): the files one by
    one, ``NAME_L``/``NAME_R`` image pairs found in directories, files skipped as not media, and directories
    that held no media."""
    files: list[str]
    pairs: list[tuple[str, str]]
    skipped: list[str]
    directories_without_media: list[str]
