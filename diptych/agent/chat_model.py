"""Any diptych model with the Chat capability as a LangChain chat model.

:class:`DiptychChatModel` wraps a model plugin's ``complete(messages, sampling, schema)`` in
LangChain's :class:`~langchain_core.language_models.BaseChatModel`, so every Chat plugin —
llama.cpp with the bundled SmolLM2, any OpenAI-compatible server, a scripted test double —
works wherever LangChain takes a chat model. A JSON schema passed as ``schema`` (or bound with
:meth:`DiptychChatModel.with_json_schema`) is handed to the plugin, which constrains its output
(a llama.cpp grammar, ``response_format`` on a server): the agent asks for proposals this way,
never by free tool choice, which small models cannot do.

:func:`agent_model` turns what ``--agent-model`` names into such a model: a diptych model
plugin (as ``-m`` takes it, with its parameters from ``-A key=value`` as ``-M`` gives them), or
a LangChain ``provider:model`` name made by ``langchain.chat_models.init_chat_model`` when the
provider's package is installed. Every schema is sent in the shape OpenAI's strict structured
outputs accept (:func:`strict_schema`), and every call the agent makes is priced and charged to
the session's budget (:func:`structured_call`).
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import metadata
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from pydantic import ConfigDict

from diptych.agent.stopping import until_stopped
from diptych.agent.strict_schema import strict_schema
from diptych.core.capabilities import Capability, Chat, Message, Model, Sampling
from diptych.core.cost import LOCAL, Cost, cost_text, price_kind
from diptych.core.errors import (
    CapabilityError,
    DiptychError,
    ModelCallError,
    PermanentModelError,
    UsageError,
)
from diptych.core.json_input import parse_json, parse_reply_json
from diptych.core.yaml_input import load_yaml

if TYPE_CHECKING:
    from diptych.agent.scoring import Budget

_ROLES = {"system": "system", "human": "user", "ai": "assistant"}


class DiptychChatModel(BaseChatModel):
    """A diptych Chat model plugin behind LangChain's chat-model interface."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model: Any
    temperature: float = 0.0
    max_tokens: int = 512
    seed: int | None = None
    #: What this model's calls have cost so far (USD), how many there were, and how many had
    #: no known price (a local model's, or a service's whose price nobody gave).
    spent: float = 0.0
    calls: int = 0
    unpriced: int = 0
    #: The same as a :class:`Cost` (a local model's calls counted as computed on this machine).
    cost: Any = Cost()
    #: Set when the user stops the search this model proposes for (a ``threading.Event``,
    #: :mod:`diptych.agent.stopping`): a call in flight is cancelled, and none starts after.
    stop: Any = None

    def __init__(self, model: Model, **kwargs: Any) -> None:
        if Capability.CHAT not in model.capabilities or not isinstance(model, Chat):
            raise CapabilityError(
                f"the agent needs a chat model; '{model.name}' offers "
                f"{', '.join(sorted(model.capabilities))}"
            )
        super().__init__(model=model, **kwargs)  # type: ignore[call-arg]

    @property
    def _llm_type(self) -> str:
        return f"diptych:{self.model.name}"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model": self.model.name, "version": self.model.version}

    def estimate(
        self, messages: Sequence[BaseMessage], kwargs: dict[str, Any] | None = None
    ) -> float | None:
        """The price (USD) of asking ``messages`` with ``kwargs``, before asking; None when the
        model has no price."""
        converted, sampling, schema = self._request(messages, None, dict(kwargs or {}))
        return self.model.price(Capability.CHAT, _payload(converted, sampling, schema))

    def _charge(self, estimate: float | None) -> None:
        actual = self.model.last_call_cost if isinstance(self.model, ReportsCallCost) else None
        cost = actual if actual is not None else estimate
        self.calls += 1
        if cost is None:
            self.unpriced += 1
        else:
            self.spent += cost
        kind = price_kind(self.model, cost)
        local = int(kind == LOCAL)
        self.cost = self.cost + Cost(
            cost or 0.0, priced=int(cost is not None), unpriced=int(cost is None), local=local,
            kinds={kind},
        )  # fmt: skip

    def with_json_schema(self, schema: dict[str, Any]) -> Runnable[Any, BaseMessage]:
        """This model with every reply constrained to JSON that validates against ``schema``."""
        return self.bind(schema=schema)

    def _request(
        self, messages: Sequence[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> tuple[list[Message], Sampling, dict[str, Any] | None]:
        if stop:
            raise ValueError("diptych chat models take no stop sequences")
        converted = []
        for message in messages:
            role = _ROLES.get(message.type)
            if role is None:
                raise ValueError(f"no diptych chat role for a LangChain '{message.type}' message")
            converted.append(Message(role=role, content=message.text))  # type: ignore[arg-type]
        sampling = Sampling(
            temperature=kwargs.get("temperature", self.temperature),
            max_tokens=kwargs.get("max_tokens", self.max_tokens),
            seed=kwargs.get("seed", self.seed),
        )
        return converted, sampling, kwargs.get("schema")

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        converted, sampling, schema = self._request(messages, stop, kwargs)
        estimate = self.model.price(Capability.CHAT, _payload(converted, sampling, schema))
        try:
            text = asyncio.run(
                until_stopped(self.model.complete(converted, sampling, schema), self.stop)
            )
        finally:
            self._charge(estimate)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        converted, sampling, schema = self._request(messages, stop, kwargs)
        estimate = self.model.price(Capability.CHAT, _payload(converted, sampling, schema))
        try:
            text = await until_stopped(self.model.complete(converted, sampling, schema), self.stop)
        finally:
            self._charge(estimate)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def _since(after: Cost, before: Cost) -> Cost:
    """What a model's calls cost between two of its running totals."""
    return Cost(
        float(after) - float(before), priced=after.priced - before.priced,
        unpriced=after.unpriced - before.unpriced, local=after.local - before.local,
        kinds=after.kinds,
    )  # fmt: skip


class AgentBudgetError(DiptychError):
    """The agent's next call would spend more than the session may (``--max-cost``)."""


#: How :func:`structured_call` writes a call that gave no reply, in place of the reply.
_NO_REPLY = "(no reply: "


def call_failure(raw: str) -> str | None:
    """Why the call whose raw reply :func:`structured_call` gave as ``raw`` failed (the model's
    error, e.g. "The reply is not valid JSON (Expecting value: line 1 column 1 (char 0);
    finish_reason=stop)."), or None when the model did reply."""
    if raw.startswith(_NO_REPLY) and raw.endswith(")"):
        return raw[len(_NO_REPLY) : -1]
    return None


def structured_call(
    chat: BaseChatModel,
    messages: Sequence[BaseMessage],
    schema: dict[str, Any],
    *,
    budget: Budget | None = None,
    **kwargs: Any,
) -> tuple[str, Any]:
    """Ask ``chat`` for JSON under ``schema`` (sent as :func:`strict_schema` makes it); return
    the raw reply and its parsed value (``None`` when the reply is not JSON: the caller records
    that as a schema rejection).

    With ``budget``, the call is priced first and refused with :class:`AgentBudgetError` when
    it would pass ``budget.max_cost``; what it cost is added to ``budget.spent``."""
    strict = strict_schema(schema)
    before = chat.cost if isinstance(chat, DiptychChatModel) else Cost()
    if budget is not None and budget.max_cost is not None and isinstance(chat, DiptychChatModel):
        # An unpriced call counts nothing toward the budget: its cost is not known.
        estimate = chat.estimate(messages, {**kwargs, "schema": strict}) or 0.0
        if budget.spent + estimate > budget.max_cost + 1e-12:
            raise AgentBudgetError(
                f"over budget: the agent's next call ({cost_text(estimate)}) would pass "
                f"--max-cost {cost_text(budget.max_cost)} (spent so far: {cost_text(budget.spent)})"
            )
    try:
        reply = chat.bind(schema=strict, **kwargs).invoke(list(messages))
    except ModelCallError as error:
        # A reply cut short or refused is an outcome of the round (a rejected, malformed
        # proposal), not a crash of the session.
        return f"{_NO_REPLY}{error})", None
    finally:
        if budget is not None and isinstance(chat, DiptychChatModel):
            budget.charge(_since(chat.cost, before), agent=True)
    text = reply.text if isinstance(reply, BaseMessage) else str(reply)
    try:
        return text, parse_reply_json(text)
    except (json.JSONDecodeError, RecursionError):
        # A reply nested past the parser's depth is as unusable as one that is not JSON.
        return text, None


# --- what --agent-model names ----------------------------------------------------------------

#: Parameters of the agent's model that price its calls, taken from ``-A`` before the rest go
#: to the model: per call, or per million tokens in and out (for a LangChain model whose
#: replies report their token usage).
PRICE_PARAMS = ("price_per_call", "input_price_per_mtok", "output_price_per_mtok")

#: LangChain's provider names and the package that brings each (``init_chat_model``'s table).
PROVIDER_PACKAGES = {
    "openai": "langchain-openai",
    "azure_openai": "langchain-openai",
    "anthropic": "langchain-anthropic",
    "ollama": "langchain-ollama",
    "google_genai": "langchain-google-genai",
    "google_vertexai": "langchain-google-vertexai",
    "bedrock": "langchain-aws",
    "bedrock_converse": "langchain-aws",
    "mistralai": "langchain-mistralai",
    "groq": "langchain-groq",
    "fireworks": "langchain-fireworks",
    "together": "langchain-together",
    "cohere": "langchain-cohere",
    "huggingface": "langchain-huggingface",
    "deepseek": "langchain-deepseek",
    "xai": "langchain-xai",
    "perplexity": "langchain-perplexity",
}


def split_price_params(
    params: Sequence[str] | Mapping[str, Any],
) -> tuple[dict[str, float], list[str] | dict[str, Any]]:
    """The pricing parameters among ``params`` (``-A key=value`` items, or a mapping as an
    audit file gives them), and the others in the shape they came in."""
    items = (
        list(params.items())
        if isinstance(params, Mapping)
        else [_key_value(item) for item in params]
    )
    prices: dict[str, float] = {}
    for key, value in items:
        if key not in PRICE_PARAMS:
            continue
        try:
            price = float(value)
        except (TypeError, ValueError):
            raise UsageError(f"-A {key}={value}: {key} takes a number of US dollars") from None
        if not math.isfinite(price) or price < 0:
            raise UsageError(f"-A {key}={value}: {key} takes a price of 0 or more")
        prices[key] = price
    if isinstance(params, Mapping):
        return prices, {k: v for k, v in params.items() if k not in PRICE_PARAMS}
    return prices, [item for item in params if _key_value(item)[0] not in PRICE_PARAMS]


def _key_value(item: str) -> tuple[str, str]:
    key, sep, value = item.partition("=")
    if not sep or not key.strip():
        raise UsageError(f"-A takes key=value, not '{item}'")
    return key.strip(), value


def agent_model(spec: str, params: Sequence[str] | Mapping[str, Any] = ()) -> Model:
    """The chat model ``--agent-model spec -A params...`` names: a diptych model plugin
    (``smollm2``, ``openai-compatible``, ``NAME:CHECKPOINT``) with ``params`` as ``-M`` takes
    them, else a LangChain ``provider:model``. ``price_per_call`` (USD) among ``params`` prices
    each call; for a LangChain model ``input_price_per_mtok`` and ``output_price_per_mtok``
    price its reported token usage (the shipped ``chat_prices.yaml`` knows some models)."""
    from diptych.core.plugins import load_plugins, split_model_name
    from diptych.core.workspace import Workspace

    prices, rest = split_price_params(params)
    plugin, provider_model = split_model_name(spec)
    registry = load_plugins()
    if plugin in registry.models or provider_model is None:
        model = Workspace.plugins.model((spec, rest))
        if Capability.CHAT not in model.capabilities:
            raise CapabilityError(
                f"the agent needs a chat model; '{spec}' offers "
                f"{', '.join(sorted(model.capabilities)) or 'no capability'}"
            )
        if "input_price_per_mtok" in prices or "output_price_per_mtok" in prices:
            raise UsageError(
                f"--agent-model {spec}: a diptych model is priced per call; give -A price_per_call"
            )
        if "price_per_call" in prices:
            model.hints.price_per_call = prices["price_per_call"]
        return model
    return LangChainChat(spec, rest, prices)


@runtime_checkable
class ReportsCallCost(Protocol):
    """A model that knows what its last call cost (from the tokens the service counted)."""

    last_call_cost: float | None


class LangChainChat(Model):
    """A LangChain chat model made by ``init_chat_model("provider:model", **params)``, with the
    Chat capability: the agent may use any provider LangChain has a package for."""

    name: ClassVar[str] = "langchain"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.CHAT})

    def __init__(
        self,
        spec: str,
        params: Sequence[str] | Mapping[str, Any],
        prices: dict[str, float],
    ) -> None:
        super().__init__()
        provider, _, model_name = spec.partition(":")
        if not provider or not model_name:
            raise UsageError(f"--agent-model {spec}: give a LangChain name as provider:model")
        self.spec = spec
        self.name = spec  # type: ignore[misc]
        self.provider = provider
        self.settings = _typed_settings(params)
        self.chat = _init_chat_model(spec, provider, self.settings)
        known = chat_prices().get(spec, {})
        self.price_per_call = prices.get("price_per_call")
        self.input_price = prices.get("input_price_per_mtok", known.get("input_per_mtok"))
        self.output_price = prices.get("output_price_per_mtok", known.get("output_per_mtok"))
        self.hints.price_per_call = self.price_per_call
        self.last_call_cost: float | None = None

    @property
    def version(self) -> str:
        package = PROVIDER_PACKAGES.get(self.provider, "")
        try:
            installed = metadata.version(package) if package else "?"
        except metadata.PackageNotFoundError:
            installed = "?"
        return f"{self.spec} ({package or self.provider} {installed})"

    def price(self, capability: Capability, payload: dict[str, Any]) -> float | None:
        """Per call when given; else the token prices over the prompt's length (four
        characters a token) and the most tokens the reply may take."""
        if self.price_per_call is not None:
            return self.price_per_call
        if self.input_price is None or self.output_price is None:
            return None
        chars = sum(len(str(m.get("content", ""))) for m in payload.get("messages", []))
        out_tokens = int((payload.get("sampling") or {}).get("max_tokens") or 512)
        return (chars / 4 * self.input_price + out_tokens * self.output_price) / 1e6

    def _cost(self, usage: dict[str, Any] | None) -> float | None:
        if self.price_per_call is not None:
            return self.price_per_call
        if not usage or self.input_price is None or self.output_price is None:
            return None
        tokens_in = float(usage.get("input_tokens") or 0)
        tokens_out = float(usage.get("output_tokens") or 0)
        return (tokens_in * self.input_price + tokens_out * self.output_price) / 1e6

    async def complete(
        self,
        messages: Sequence[Message],
        sampling: Sampling,
        schema: dict[str, Any] | None = None,
    ) -> str:
        converted: list[BaseMessage] = []
        for m in messages:
            text = m.content if isinstance(m.content, str) else json.dumps(m.content)
            kind = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
            converted.append(kind[m.role](content=text))
        self.last_call_cost = None
        try:
            # The synchronous road, in a thread: a provider's async client belongs to the event
            # loop it was first used on, and each call here may come on a new one.
            if schema is None:
                plain = await asyncio.to_thread(self.chat.invoke, converted)
                self.last_call_cost = self._cost(getattr(plain, "usage_metadata", None))
                return str(plain.text)
            result = await asyncio.to_thread(self._structured(schema).invoke, converted)
        except (ImportError, ValueError, TypeError) as error:
            raise PermanentModelError(f"{self.spec}: {error}") from error
        raw: Any = result.get("raw") if isinstance(result, dict) else None
        self.last_call_cost = self._cost(getattr(raw, "usage_metadata", None))
        parsed = result.get("parsed") if isinstance(result, dict) else None
        if parsed is not None:
            return json.dumps(parsed.model_dump() if hasattr(parsed, "model_dump") else parsed)
        return str(raw.text if isinstance(raw, BaseMessage) else "")

    def _structured(self, schema: dict[str, Any]) -> Runnable[Any, Any]:
        titled = {"title": "answer", **schema}
        try:
            return self.chat.with_structured_output(
                titled, method="json_schema", include_raw=True, strict=True
            )
        except (NotImplementedError, ValueError, TypeError):
            # A provider without a JSON-schema mode takes the schema as its one forced tool
            # (never a free choice among tools).
            return self.chat.with_structured_output(titled, include_raw=True)


def _typed_settings(params: Sequence[str] | Mapping[str, Any]) -> dict[str, Any]:
    """``key=value`` strings as keyword arguments: JSON values where they parse (numbers,
    booleans), strings otherwise; a mapping as it is."""
    if isinstance(params, Mapping):
        return dict(params)
    out: dict[str, Any] = {}
    for item in params:
        key, _, value = item.partition("=")
        try:
            out[key.strip()] = parse_json(value, f"-A {key.strip()}: ")
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


def _init_chat_model(spec: str, provider: str, settings: dict[str, Any]) -> BaseChatModel:
    package = PROVIDER_PACKAGES.get(provider)
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        raise UsageError(
            f"--agent-model {spec} needs LangChain's 'langchain' package: pip install langchain"
            + (f" {package}" if package else "")
        ) from None
    try:
        return init_chat_model(spec, **settings)
    except ImportError:
        wanted = package or f"the LangChain package of provider '{provider}'"
        raise UsageError(
            f"--agent-model {spec} needs the '{wanted}' package: pip install {wanted}"
        ) from None
    except ValueError as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else "not accepted"
        raise UsageError(f"--agent-model {spec}: {first}") from None
    except Exception as error:
        # A provider's own check of its settings (a missing API key, an unknown parameter)
        # is still a usage error: said in one line, not a traceback.
        raise UsageError(f"--agent-model {spec}: {type(error).__name__}: {error}") from None


@cache
def chat_prices() -> dict[str, dict[str, float]]:
    """USD per million input and output tokens of some LangChain models (``chat_prices.yaml``)."""
    from diptych.agent import _prompts_dir

    path = _prompts_dir() / "chat_prices.yaml"
    if not path.exists():
        return {}
    data = load_yaml(path) or {}
    return {
        str(name): {k: float(v) for k, v in entry.items() if k.endswith("_per_mtok")}
        for name, entry in (data.get("models") or {}).items()
    }


def _payload(
    messages: Sequence[Message], sampling: Sampling, schema: dict[str, Any] | None
) -> dict[str, Any]:
    return {
        "messages": [m.model_dump() for m in messages],
        "sampling": sampling.model_dump(),
        "schema": schema,
    }
