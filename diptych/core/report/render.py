"""The audit rendered: HTML and Markdown from the package's Jinja2 templates, and JSON."""

from __future__ import annotations

import re
from dataclasses import asdict, replace
from functools import cache
from typing import Any

import jinja2
import markupsafe

from diptych.core.audit.run_status import listed_counts, outcome_words, trials_asked
from diptych.core.probe import Figure, ProbeResult
from diptych.core.report.actions import recommended_actions
from diptych.core.report.audit import Audit, RunPart
from diptych.core.report.charts import Chart, charted, charts_of
from diptych.core.report.charts.svg import draw
from diptych.core.report.charts.svg import flows as chart_flows
from diptych.core.report.charts.svg import strips as chart_strips
from diptych.core.report.findings import METHOD as AGENT_METHOD
from diptych.core.report.formatting import (
    cell_text,
    counted,
    data_uri,
    figure_text,
    fmt,
    interval,
    p_text,
    sample_size,
)
from diptych.core.report.frameworks import (
    ACCURACY_CONTEXT,
    appendix,
    by_framework,
    evidence_of,
    frameworks,
)
from diptych.core.report.frameworks import CONTEXT as FRAMEWORK_CONTEXT
from diptych.core.report.frameworks import SECTIONS as FRAMEWORK_SECTIONS
from diptych.core.report.gates import (
    bought_on,
    decided_intervals,
    gate_lines,
    gates_heading,
    read_whole,
)
from diptych.core.report.glossary import measured_glossary
from diptych.core.report.headlines import figure_interval, headlines, names_intervals
from diptych.core.report.interval_methods import figures_note, interval_methods
from diptych.core.report.left_out import left_out
from diptych.core.report.missing_intervals import missing_marked
from diptych.core.report.print_tables import (
    SHORT_TABLE,
    fits_page,
    numeric_cell,
    print_parts,
    row_bands,
)
from diptych.core.report.shell_lines import shell_lines
from diptych.core.report.standings_tables import PAIR_COLUMNS, RANK_COLUMNS, standings_text
from diptych.core.report.verdict import (
    findings,
    published_context,
    resamples_text,
    scope_line,
)
from diptych.core.report.whole_ids import (
    keep_ids_whole,
    kept_audit_names,
    kept_model_ids,
    kept_probe_names,
    version_words,
)
from diptych.core.safe_text import escape_controls, has_controls

#: 2: one report covers several runs (``runs``); a one-run report keeps version 1's keys.
#: 3: ``verdict`` (findings and scope), ``charts`` per run, ``context`` (published values),
#: ``actions``, ``glossary``, ``frameworks``, ``appendix_tables``; ``plugins`` lists only those
#: the runs used. 4: ``gates`` (an audit's release gates decided) and ``alt`` of each probe
#: figure. 5: ``frameworks`` is the appendix mapping (one entry per clause: what the report
#: evidences, what it does not, where), ``standings`` every model side by side.
#: docs/reports.md documents every key.
REPORT_SCHEMA_VERSION = 5
#: A table wider than this moves to the run's appendix; the body keeps the narrow ones.
BODY_MAX_COLUMNS = 6


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def _shown(value: Any) -> Any:
    """Every value a template prints, with terminal control characters escaped: names come
    from users' files and models' answers, and a Markdown report is read in terminals too."""
    if isinstance(value, str) and has_controls(value):
        escaped = escape_controls(str(value))
        # Markup stays markup (it was escaped for HTML already); a plain str is escaped next.
        return markupsafe.Markup(escaped) if isinstance(value, markupsafe.Markup) else escaped
    return value


def header_words(name: str) -> markupsafe.Markup:
    """A column's name as its header cell wraps it on a phone: a sign or a unit kept with the
    word before it ("P(he) + P(she)", "paired %") in a span the phone's styles keep on one
    line, so that a narrow number column's header wraps in a few lines, not one word or sign
    a line. Printed, the header wraps between any words (a table must fit the page)."""
    groups: list[list[str]] = []
    for word in name.split(" "):
        if groups and (word in ("+", "%") or groups[-1][-1] == "+"):
            groups[-1].append(word)
        else:
            groups.append([word])
    return markupsafe.Markup(" ").join(
        markupsafe.Markup('<span class="keep">{}</span>').format(" ".join(g))
        if len(g) > 1
        else g[0]
        for g in groups
    )


#: An option's name in a printed command ("--until-decided"): never broken after its hyphens.
_OPTION = re.compile(r"(?<![^\s])(--?[A-Za-z][\w-]*)")
#: A printed command's words, between its spaces.
_WORDS = re.compile(r"(\S+)")
#: Where a word of a command may break: after a ``/`` of a path (not between a link's two),
#: and after a ``,`` of a list (``-p masculine=carpenter,farmer,…``, too long for a phone).
_PATH_BREAKS = re.compile(r"(?<=/)(?!/)|(?<=,)(?!$)")


def command_html(command: str) -> markupsafe.Markup:
    """A command as a ``<pre>`` prints it: each option's name in a span kept on one line, and
    each other word kept on one line but after a ``/`` of a path or a ``,`` of a list, so a
    page or a phone breaks the command only between its words and its list's items, never as
    ``--until-`` / ``decided``, ``smollm2-`` / ``offline.yaml`` or ``carpen`` / ``ter``, which
    a reader copying it would type as given. The text copied is unchanged."""
    out: list[markupsafe.Markup] = []
    for i, part in enumerate(_WORDS.split(command)):
        if not i % 2:
            out.append(markupsafe.escape(part))
        elif _OPTION.fullmatch(part):
            out.append(markupsafe.Markup('<span class="option">{}</span>').format(part))
        else:
            pieces = [p for p in _PATH_BREAKS.split(part) if p]
            kept = [markupsafe.Markup('<span class="nowrap">{}</span>').format(p) for p in pieces]
            out.append(markupsafe.Markup("<wbr>").join(kept))
    return markupsafe.Markup("").join(out)


#: A command in a sentence, as Markdown marks it.
_CODE_SPAN = re.compile(r"`([^`]+)`")


def code_spans(text: str) -> markupsafe.Markup:
    """A sentence with its Markdown code spans as ``<code>`` (a command a reader pastes)."""
    return markupsafe.Markup("").join(
        markupsafe.Markup("<code>{}</code>").format(part) if i % 2 else markupsafe.escape(part)
        for i, part in enumerate(_CODE_SPAN.split(text))
    )


#: The frameworks' place where the report holds no figure: no sentence claims evidence.
NO_FRAMEWORK_CONTEXT = (
    "No figure was measured in this report yet, so it is no evidence under the frameworks "
    "auditors are asked about."
)


@cache
def _environment(autoescape: bool) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("diptych.core.report", "templates"),
        autoescape=autoescape,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        finalize=_shown,
    )
    env.globals.update(
        fmt=fmt,
        version_words=version_words,
        cell_text=cell_text,
        p_text=p_text,
        counted=counted,
        resamples_text=resamples_text,
        figure_text=figure_text,
        interval=interval,
        figure_interval=figure_interval,
        figures_note=figures_note,
        missing_marked=missing_marked,
        sample_size=sample_size,
        slug=slug,
        body_tables=body_tables,
        wide_tables=wide_tables,
        charted=charted,
        chart_svg=draw,
        chart_flows=chart_flows,
        chart_strips=chart_strips,
        figure_alt=figure_alt,
        print_parts=print_parts,
        row_bands=row_bands,
        fits_page=fits_page,
        numeric_cell=numeric_cell,
        SHORT_TABLE=SHORT_TABLE,
        outcome_words=outcome_words,
        trials_asked=trials_asked,
    )
    env.filters["data_uri"] = data_uri
    env.filters["id"] = id
    env.filters["header_words"] = header_words
    env.filters["command_html"] = command_html
    env.filters["shell_lines"] = shell_lines
    env.filters["code_spans"] = code_spans
    return env


def run_charts(audit: Audit) -> dict[str, list[Chart]]:
    """Each run's charts (by run id), then each comparison's and agent session's (by anchor)."""
    out = {part.id: charts_of(part.result, part.anchor) for part in audit.runs}
    for part in audit.runs:
        for chart in out[part.id]:
            if not chart.name.startswith(part.anchor):
                chart.name = slug(f"{part.anchor}-{chart.name}")
    for c in audit.comparisons:
        out[c.anchor] = charts_of(c.result, c.anchor)
    for a in audit.agent_sessions:
        found = a.chart()
        out[a.anchor] = [found] if found is not None else []
    return out


def body_tables(tables: list[Any]) -> list[Any]:
    return [t for t in tables if len(t.columns) <= BODY_MAX_COLUMNS]


def wide_tables(tables: list[Any]) -> list[Any]:
    return [t for t in tables if len(t.columns) > BODY_MAX_COLUMNS]


def _part_runs(audit: Audit) -> dict[str, str]:
    """Each audit part's run, by the part's name."""
    return {str(p.get("name")): str(p.get("run")) for p in audit.scope.get("parts") or []}


def framework_items(audit: Audit) -> list[Any]:
    """The frameworks appendix: every shipped and organisation's item mapped onto the audit."""
    return appendix(audit, frameworks(audit.frameworks_files))


def _framework_context(audit: Audit) -> list[dict[str, str]]:
    """Where the figures stand in the frameworks: as accuracies where every run calibrates an
    annotator, as bias where a figure was measured, else nothing (no sentence speaks of "the
    figures above" where there are none)."""
    if audit.words.accuracy:
        return ACCURACY_CONTEXT
    return FRAMEWORK_CONTEXT if "measured" in evidence_of(audit) else []


def _context(audit: Audit, figure_paths: dict[int, str]) -> dict[str, Any]:
    return {
        "audit": audit,
        "gates": gate_lines(audit.gates, _part_runs(audit), bought_on(audit), read_whole(audit))
        if audit.gates is not None
        else [],
        "decided": decided_intervals(audit),
        # Every interval of its tables of figures named where one is.
        "beside": names_intervals(audit),
        "gates_heading": gates_heading(audit.gates) if audit.gates is not None else "",
        "headlines": headlines(audit),
        "findings": findings(audit),
        "scope_line": scope_line(audit),
        "left_out": left_out(audit),
        "contexts": published_context(audit),
        "actions": recommended_actions(audit),
        "glossary": measured_glossary(audit),
        "interval_limits": interval_methods(audit).sentences,
        "frameworks": by_framework(framework_items(audit)),
        "framework_sections": FRAMEWORK_SECTIONS,
        # A framework sentence speaks of "the figures above": none where nothing was measured.
        "framework_context": _framework_context(audit),
        "no_framework_context": NO_FRAMEWORK_CONTEXT,
        "standings": [standings_text(t) for t in audit.standings.tables]
        if audit.standings is not None
        else [],
        "standings_method": audit.standings.method if audit.standings is not None else "",
        "rank_columns": RANK_COLUMNS,
        "pair_columns": PAIR_COLUMNS,
        "charts": run_charts(audit),
        "figure_paths": figure_paths,
        "several": len(audit.runs) > 1,
        "agent_method": AGENT_METHOD,
    }


def render_html(audit: Audit) -> str:
    """One self-contained page: styles inline, every figure and image a data URI."""
    env = _environment(True)
    css = env.loader.get_source(env, "report.css")[0] if env.loader else ""
    page = env.get_template("report.html.j2").render(css=css, **_context(audit, {}))
    # A probe's name is copied from the page as a run id is (``pst-text``, never ``pst-``).
    probes = kept_probe_names(r.view.run.probe for r in audit.runs)
    models = kept_model_ids(m for r in audit.runs for m in r.view.model_ids())
    audits = kept_audit_names(audit.scope)
    return keep_ids_whole(page, [*(r.id for r in audit.runs), *probes, *models, *audits])


def render_markdown(audit: Audit, figure_paths: dict[int, str]) -> str:
    """The same content as Markdown; figures and images are files beside it
    (``figure_paths``: ``id(figure or image)`` → relative path)."""
    return _environment(False).get_template("report.md.j2").render(**_context(audit, figure_paths))


def result_json(result: ProbeResult, figure_paths: dict[int, str]) -> dict[str, Any]:
    # Without the figures: ``asdict`` would deep-copy each with its drawing.
    out = asdict(replace(result, figures=[]))
    out["figures"] = [
        {
            "name": f.name,
            "title": f.title,
            "path": figure_paths.get(id(f), f.path),
            "alt": figure_alt(f),
        }
        for f in result.figures
    ]
    return out


def figure_alt(figure: Figure) -> str:
    """A probe figure's text alternative: the numbers it shows where the probe states them,
    else its title and caption."""
    return f"{figure.title}. {figure.alt or figure.caption}".strip()


def _chart_json(charts: list[Chart]) -> list[dict[str, Any]]:
    return [
        c.to_dict() | {"alt": c.alt_text(), "path": f"figures/charts/{c.name}.svg"} for c in charts
    ]


def _run_json(part: RunPart, figure_paths: dict[int, str], charts: list[Chart]) -> dict[str, Any]:
    run = part.view.run
    return {
        "run": run.id,
        "probe": run.probe,
        "probe_version": run.probe_version,
        "params": run.params,
        "status": run.status,
        "status_text": part.status_said,
        "fingerprint": run.fingerprint,
        "diptych_version": run.diptych_version,
        "started": part.started,
        "finished": part.finished,
        "reused": part.reused or None,
        "cost_usd": part.cost,
        # The estimate above (the models' declared prices) beside what the services reported.
        "cost_actual_usd": part.actual.usd,
        "cost_actual_calls": {"reported": part.actual.reported, "answered": part.actual.answered},
        # As `diptych runs --json` gives them: a decided run's untried trials not bought.
        "counts": listed_counts(run.status, part.counts),
        "models": part.models,
        "result": result_json(part.result, figure_paths),
        "charts": _chart_json(charts),
        "appendix_tables": [t.title for t in wide_tables(part.result.tables)],
        "sections": [
            {
                "title": s.title,
                "place": s.place,
                "text": s.text,
                "tables": [asdict(t) for t in s.tables],
            }
            for s in part.sections
        ],
        # Bought on since its stop with its look's trials not rebuilt: its tables, charts,
        # labels and example images read all its trials (its headline figures the look's).
        "read_all_since": part.whole_since,
        "review": None
        if part.review is None
        else {
            "labels": part.review.labels,
            # The look whose trials the labels were counted on, as the figures read them.
            "labels_at": part.read_at or None,
            "agreement": [asdict(t) for t in part.review.agreement],
            "notes": part.review.notes,
        },
    }


def audit_json(audit: Audit, figure_paths: dict[int, str]) -> dict[str, Any]:
    """The report for machines. A one-run report also carries that run's keys at the top
    level (``run``, ``probe``, ``result`` ...), as version 1 did."""
    charts = run_charts(audit)
    runs = [_run_json(part, figure_paths, charts[part.id]) for part in audit.runs]
    out: dict[str, Any] = {
        "schema_version": REPORT_SCHEMA_VERSION,
        "written": audit.written,
        "diptych_version": audit.diptych_version,
        "plugins": audit.plugins,
        "licenses": audit.licenses,
        "headlines": [asdict(h) for h in headlines(audit)],
        "verdict": {
            "findings": [f.to_dict() for f in findings(audit)],
            "scope": scope_line(audit),
            "left_out": left_out(audit).sentence,
        },
        "gates": None
        if audit.gates is None and not audit.gate_error
        else {
            "heading": gates_heading(audit.gates) if audit.gates is not None else "",
            "family": audit.gates.family if audit.gates is not None else None,
            "confidence": audit.gates.confidence if audit.gates is not None else None,
            "gates": [
                g.to_dict()
                for g in gate_lines(
                    audit.gates, _part_runs(audit), bought_on(audit), read_whole(audit)
                )
            ]
            if audit.gates is not None
            else [],
            "error": audit.gate_error or None,
        },
        "context": [c.to_dict() for c in published_context(audit)],
        "actions": [a.to_dict() for a in recommended_actions(audit)],
        "glossary": measured_glossary(audit),
        "intervals": interval_methods(audit).sentences,
        "frameworks": [item.to_dict() for item in framework_items(audit)],
        "standings": None if audit.standings is None else audit.standings.to_dict(),
        "runs": runs,
        "comparisons": [
            {
                "baseline": c.baseline,
                "intervention": c.intervention,
                "result": result_json(c.result, figure_paths),
                "charts": _chart_json(charts[c.anchor]),
            }
            for c in audit.comparisons
        ],
        "draft": None if audit.draft is None else audit.draft.to_dict(),
        "scope": audit.scope,
        "agent_findings": {
            "method": AGENT_METHOD,
            "sessions": [
                a.to_dict() | {"charts": _chart_json(charts[a.anchor])}
                for a in audit.agent_sessions
            ],
        }
        if audit.agent_sessions
        else None,
    }
    if len(runs) == 1:
        out = {**runs[0], **out}
    return out
