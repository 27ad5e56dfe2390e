"""Next-token log-probabilities on llama.cpp, evaluated in the pieces the prompt's probe fixed.

Why pieces, and why these. llama.cpp's CPU kernels round a token's values differently in
batches of other shapes, so a value is reproducible only if the same tokens are always
decoded in the same batches. Reusing whatever the previous request left in the KV cache
breaks that; evaluating every prompt from an empty cache keeps it but repeats the work the
prompts of one template share. Here each prompt is decoded in the pieces its probe stated
(:class:`~diptych.core.capabilities.LikelihoodRequest`): pieces fixed by the template, never
by what ran before, so a piece's KV state computed once and restored is byte for byte the
state a fresh evaluation of the same pieces builds, in the same cells.

The canonical evaluation of a request whose token pieces are ``P1 .. Pk, S, L`` (``L`` its
last segment, ``S`` the one before, ``P`` the rest) and whose siblings' last segments are
``L1 .. Lm``:

1. from an empty cache, each ``Pi`` is decoded as its own batch in sequence 0 (cells from 0);
2. the prefix is shared with sequences 1 .. m-1, and one batch holds ``S`` (its tokens in
   every sequence) followed by each sibling's last segment in its own sequence, the last
   token of each an output row;
3. a candidate of several tokens is decoded after its own prompt alone, in one batch with
   every position output, from a cache holding only that prompt (its state restored at
   cells from 0).

A prompt without segments is one piece: step 2 then decodes the whole prompt in one batch,
as every prompt was before pieces existed, with the same values. Step 1 is what is shared:
the states of the ``P`` pieces are kept (most recently used first, within a byte budget) and
restored into an empty cache, and the cache's current pieces are kept across calls, rolled
back to the longest common beginning. A group that does not fit one batch (``n_batch``
tokens, :data:`MAX_SEQUENCES` sequences) is cut into consecutive groups of siblings, each
decoded in the same way -- which is again fixed by the request alone.
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from diptych.core.capabilities import LikelihoodRequest
from diptych.core.errors import PermanentModelError

#: Sequences decoded together in one batch at most (the context is created with this many).
MAX_SEQUENCES = 16
#: Bytes of saved prefix states kept for reuse.
STATE_BUDGET = 64 << 20
#: Next-token rows kept of recently decoded groups, so that a sibling asked for in a later
#: call is answered without decoding its group again.
ROW_MEMO = 64

Pieces = tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Group:
    """Prompts decoded together: shared pieces, the piece decoded with the siblings, and
    each sibling's last piece (tokens)."""

    prefix: Pieces
    shared: tuple[int, ...]
    leaves: Pieces


@dataclass
class Prepared:
    """A request turned into tokens: its group, its place in it, its candidates' tokens."""

    group: Group
    index: int
    n_context: int
    candidates: dict[str, list[int]]


def split_trailing_space(prompt: str) -> tuple[str, str]:
    """(prompt without its trailing spaces and tabs, those spaces and tabs).

    Newlines stay with the prompt: unlike a space, a newline is a token of its own.
    """
    context = prompt.rstrip(" \t")
    return context, prompt[len(context) :]


class LikelihoodEvaluator:
    """Canonical piece-wise evaluation on one llama.cpp context (callers hold its lock)."""

    def __init__(
        self,
        llm: Any,
        tokenize: Callable[[str], list[int]],
        *,
        n_ctx: int,
        state_budget: int = STATE_BUDGET,
    ) -> None:
        import llama_cpp
        import numpy

        self._llm = llm
        self._b: Any = llama_cpp.llama_cpp
        self._np: Any = numpy
        self._tokenize = tokenize
        self._n_ctx = n_ctx
        self._n_vocab: int = llm.n_vocab()
        self._n_batch: int = llm.n_batch
        self._log_softmax = llama_cpp.Llama.logits_to_logprobs
        self._memory = llm._ctx.memory
        self._batch = llama_cpp._internals.LlamaBatch(
            n_tokens=self._n_batch, embd=0, n_seq_max=MAX_SEQUENCES, verbose=False
        )
        #: The pieces sequence 0 holds from cell 0, decoded canonically; None: unknown.
        self._path: list[tuple[int, ...]] | None = None
        self._states: OrderedDict[Pieces, bytes] = OrderedDict()
        self._state_bytes = 0
        self._state_budget = state_budget
        self._rows: OrderedDict[tuple[Group, int], Any] = OrderedDict()
        #: Batches and tokens decoded so far (what the work costs: a token costs about the
        #: same in any batch of more than a few, so tokens measure it).
        self.decodes = 0
        self.tokens = 0

    # --- public ------------------------------------------------------------------------

    def logprobs(self, requests: Sequence[LikelihoodRequest]) -> list[dict[str, float]]:
        """ln P(candidate | prompt) per request, each as its canonical evaluation gives it."""
        prepared = [self._prepare(r) for r in requests]
        by_group: dict[Group, list[int]] = {}
        for i, p in enumerate(prepared):
            by_group.setdefault(p.group, []).append(i)
        results: list[dict[str, float]] = [{} for _ in requests]
        # Groups in the order of their pieces: a walk of the prefix tree, so that each
        # shared piece is decoded once per call and rolled back to, not restored.
        for group in sorted(by_group, key=lambda g: (g.prefix, g.shared)):
            members = [prepared[i] for i in by_group[group]]
            rows, states = self._group_rows(group, members)
            for i in by_group[group]:
                own = prepared[i]
                results[i] = self._score(own, rows[own.index], states.get(own.index))
        self._drop_other_sequences()
        return results

    def invalidate(self) -> None:
        """Something else used the context (chat): its cache content is unknown."""
        self._path = None

    def forget(self) -> None:
        """Drop every kept state and row: the next request starts from an empty cache."""
        self._states.clear()
        self._rows.clear()
        self._state_bytes = 0
        self._path = None

    def close(self) -> None:
        self.forget()
        self._batch.close()

    # --- tokens ------------------------------------------------------------------------

    def _prepare(self, request: LikelihoodRequest) -> Prepared:
        if not request.candidates:
            raise PermanentModelError("A likelihood request needs at least one candidate.")
        context, moved = split_trailing_space(request.prompt)
        segments = request.segments or (request.prompt,)
        siblings = request.siblings or (segments[-1],)
        index = siblings.index(segments[-1])
        head = "".join(segments[:-1])
        tokens: dict[str, list[int]] = {}

        def ids(text: str) -> list[int]:
            if text not in tokens:
                tokens[text] = self._tokenize(text)
            return tokens[text]

        contexts = [ids(split_trailing_space(head + s)[0]) for s in siblings]
        own = contexts[index]
        if not own or not context:
            raise PermanentModelError("An empty prompt has no next-token distribution.")
        candidates = self._candidate_tokens(context, moved, own, request.candidates)
        bounds: list[int] = []
        for i in range(1, len(segments)):
            text = split_trailing_space("".join(segments[:i]))[0]
            if not text:
                continue
            cut = ids(text)
            # A cut is kept only where every sibling's tokens really break there (a BPE
            # merge across it would make the pieces another text), and only forward.
            if bounds and len(cut) <= bounds[-1]:
                continue
            if all(len(cut) < len(c) and c[: len(cut)] == cut for c in contexts):
                bounds.append(len(cut))
        starts = [0, *bounds[:-1]] if bounds else []
        pieces = tuple(tuple(own[a:b]) for a, b in zip(starts, bounds, strict=True))
        start = bounds[-1] if bounds else 0
        group = Group(
            prefix=pieces[:-1],
            shared=pieces[-1] if pieces else (),
            leaves=tuple(tuple(c[start:]) for c in contexts),
        )
        return Prepared(group, index, len(own), candidates)

    def _candidate_tokens(
        self, context: str, moved: str, context_ids: list[int], candidates: Sequence[str]
    ) -> dict[str, list[int]]:
        """Per candidate, the token ids it adds to the context.

        A candidate is never tokenised on its own: the prompt and candidate are tokenised
        whole and must start with the prompt's tokens (see ``_LlamaCppModel``).
        """
        out: dict[str, list[int]] = {}
        for candidate in candidates:
            if not candidate:
                raise PermanentModelError("An empty candidate has no next-token probability.")
            full = self._tokenize(context + moved + candidate)
            if full[: len(context_ids)] != context_ids:
                raise PermanentModelError(
                    f"The candidate {candidate!r} merges with the end of the prompt into one "
                    "token, so it has no next-token probability; start candidates with a "
                    "space or punctuation (e.g. ' he')."
                )
            if len(full) > self._n_ctx:
                raise PermanentModelError(
                    f"The prompt and candidate {candidate!r} exceed the context window of "
                    f"{self._n_ctx} tokens; raise n_ctx."
                )
            out[candidate] = full[len(context_ids) :]
        return out

    # --- scoring -----------------------------------------------------------------------

    def _score(self, prepared: Prepared, row: Any, state: bytes | None) -> dict[str, float]:
        result: dict[str, float] = {}
        for candidate, tokens in prepared.candidates.items():
            total = float(row[tokens[0]])
            if len(tokens) > 1:
                assert state is not None
                rows = self._continuation(state, prepared.n_context, tokens)
                total += sum(float(rows[i][tokens[i + 1]]) for i in range(len(tokens) - 1))
            result[candidate] = total
        return result

    def _continuation(self, state: bytes, n_past: int, tokens: list[int]) -> list[Any]:
        """Log-softmax rows of ``tokens`` decoded in one batch after the restored prompt,
        every position output (as a server scoring prompt + candidate with echo does)."""
        self._restore(state)
        rows: list[Any] = []
        for start in range(0, len(tokens), self._n_batch):
            chunk = tokens[start : start + self._n_batch]
            self._fill([(chunk, n_past + start, (0,), True)])
            rows.extend(self._output_rows(len(chunk)))
        # The restored prompt's last piece came from a batch of siblings: only the
        # prefix pieces stay canonical (and the state always starts with them).
        self._path = None
        return rows

    # --- groups ------------------------------------------------------------------------

    def _chunks(self, group: Group) -> list[list[int]]:
        """The siblings cut into consecutive runs that fit one batch each."""
        chunks: list[list[int]] = []
        size = 0
        # A run's siblings sit in the cache together, after the prefix.
        limit = min(self._n_batch, self._n_ctx - sum(len(p) for p in group.prefix))
        for j, leaf in enumerate(group.leaves):
            if chunks and len(chunks[-1]) < MAX_SEQUENCES and size + len(leaf) <= limit:
                chunks[-1].append(j)
                size += len(leaf)
            else:
                chunks.append([j])
                size = len(group.shared) + len(leaf)
        return chunks

    def _group_rows(
        self, group: Group, members: Sequence[Prepared]
    ) -> tuple[dict[int, Any], dict[int, bytes]]:
        """Next-token log-softmax rows of the members' prompts (from the memo or decoded),
        and the state of each member prompt a candidate of several tokens continues."""
        wanted = {m.index for m in members}
        continued = {m.index for m in members if any(len(t) > 1 for t in m.candidates.values())}
        rows = {j: self._rows[(group, j)] for j in wanted if (group, j) in self._rows}
        states: dict[int, bytes] = {}
        for chunk in self._chunks(group):
            todo = set(chunk) & ((wanted - rows.keys()) | continued)
            if not todo:
                continue
            logits = self._decode_chunk(group, chunk)
            for seq, (j, row) in enumerate(zip(chunk, logits, strict=True)):
                rows[j] = row
                self._remember((group, j), row)
                if j in continued:
                    states[j] = self._save(seq)
        return rows, states

    def _decode_chunk(self, group: Group, chunk: list[int]) -> list[Any]:
        """Steps 1 and 2 for one run of siblings; their next-token rows."""
        self._reach(group.prefix)
        n0 = sum(len(p) for p in group.prefix)
        if len(chunk) == 1:
            tokens = list(group.shared) + list(group.leaves[chunk[0]])
            for start in range(0, len(tokens), self._n_batch):
                piece = tokens[start : start + self._n_batch]
                self._fill([(piece, n0 + start, (0,), False)])
            return self._output_rows(1)
        seqs = tuple(range(len(chunk)))
        for s in seqs[1:]:
            self._b.llama_memory_seq_cp(self._memory, 0, s, 0, n0)
        parts: list[tuple[Sequence[int], int, tuple[int, ...], bool]] = []
        if group.shared:
            parts.append((group.shared, n0, seqs, False))
        n1 = n0 + len(group.shared)
        for s, j in zip(seqs, chunk, strict=True):
            parts.append((group.leaves[j], n1, (s,), False))
        self._fill(parts)
        return self._output_rows(len(chunk))

    # --- the cache ---------------------------------------------------------------------

    def _reach(self, prefix: Pieces) -> None:
        """Sequence 0 holds exactly ``prefix`` (decoded piece by piece), nothing else."""
        path = self._path
        if path is None:
            self._b.llama_memory_clear(self._memory, False)
            path = []
        common = 0
        while common < min(len(path), len(prefix)) and path[common] == prefix[common]:
            common += 1
        deepest = next(
            (r for r in range(len(prefix), common, -1) if prefix[:r] in self._states), None
        )
        if deepest is not None:
            self._states.move_to_end(prefix[:deepest])
            self._restore(self._states[prefix[:deepest]])
            path = list(prefix[:deepest])
        else:
            path = path[:common]
        self._path = path
        self._truncate()
        for piece in prefix[len(path) :]:
            at = sum(len(p) for p in path)
            for start in range(0, len(piece), self._n_batch):
                part = piece[start : start + self._n_batch]
                self._fill([(part, at + start, (0,), False)])
            path.append(piece)
            self._keep(tuple(path))

    def _truncate(self) -> None:
        """Drop every cell but those of the current path's pieces."""
        assert self._path is not None
        self._drop_other_sequences()
        self._b.llama_memory_seq_rm(self._memory, 0, sum(len(p) for p in self._path), -1)

    def _drop_other_sequences(self) -> None:
        for s in range(1, MAX_SEQUENCES):
            self._b.llama_memory_seq_rm(self._memory, s, -1, -1)

    def _keep(self, pieces: Pieces) -> None:
        if pieces in self._states:
            return
        data = self._save(0)
        self._states[pieces] = data
        self._state_bytes += len(data)
        while self._state_bytes > self._state_budget and len(self._states) > 1:
            _, dropped = self._states.popitem(last=False)
            self._state_bytes -= len(dropped)

    def _remember(self, key: tuple[Group, int], row: Any) -> None:
        self._rows[key] = row
        self._rows.move_to_end(key)
        while len(self._rows) > ROW_MEMO:
            self._rows.popitem(last=False)

    def _save(self, seq: int) -> bytes:
        ctx = self._llm.ctx
        size = self._b.llama_state_seq_get_size(ctx, seq)
        buffer = (ctypes.c_uint8 * size)()
        written = self._b.llama_state_seq_get_data(ctx, buffer, size, seq)
        return bytes(buffer[:written])

    def _restore(self, state: bytes) -> None:
        """An empty cache, then the saved sequence in sequence 0 at cells from 0."""
        self._b.llama_memory_clear(self._memory, False)
        buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
        if self._b.llama_state_seq_set_data(self._llm.ctx, buffer, len(state), 0) == 0:
            raise PermanentModelError("llama.cpp could not restore a saved prompt state.")

    # --- batches -----------------------------------------------------------------------

    def _fill(self, parts: Sequence[tuple[Sequence[int], int, tuple[int, ...], bool]]) -> None:
        """Decode one batch: per part its tokens, first position, sequences, and whether
        every position is an output (else only its last one, unless another part follows
        in the same sequences: a shared piece outputs nothing)."""
        batch = self._batch.batch
        n = 0
        for tokens, pos, seqs, every in parts:
            shared = len(seqs) > 1
            for i, token in enumerate(tokens):
                batch.token[n] = token
                batch.pos[n] = pos + i
                batch.n_seq_id[n] = len(seqs)
                for s, seq in enumerate(seqs):
                    batch.seq_id[n][s] = seq
                last = i == len(tokens) - 1
                batch.logits[n] = every or (last and not shared)
                n += 1
        batch.n_tokens = n
        self._llm._ctx.decode(self._batch)
        self.decodes += 1
        self.tokens += n

    def _output_rows(self, n_rows: int) -> list[Any]:
        """Log-softmax of the last decode's ``n_rows`` output rows (new arrays)."""
        logits = self._np.ctypeslib.as_array(
            self._b.llama_get_logits(self._llm.ctx), shape=(n_rows, self._n_vocab)
        )
        return [self._log_softmax(row) for row in logits]
