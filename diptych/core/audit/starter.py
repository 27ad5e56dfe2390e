"""The commented starting file ``diptych audit init`` writes, for the installed plugins."""

from __future__ import annotations

from diptych.core.plugins import load_plugins


def starter_audit(name: str = "my-audit") -> str:
    """A valid audit file: the offline default (SmolLM2 with pst-text) when installed, and
    every installed probe, model and annotator listed in comments."""
    registry = load_plugins()
    probes = ", ".join(sorted(registry.probes)) or "none"
    models = ", ".join(sorted(registry.models)) or "none"
    annotators = ", ".join(sorted(registry.annotators)) or "none"
    model = "smollm2" if "smollm2" in registry.models else next(iter(sorted(registry.models)), "")
    probe = "pst-text" if "pst-text" in registry.probes else next(iter(sorted(registry.probes)), "")
    return f"""\
# An audit as a file: `diptych audit check {name}.yaml` validates it and prints the plan,
# `diptych audit run {name}.yaml` runs every part (rerun it to continue after a stop).
# Schema: `diptych audit schema` (JSON Schema, for editors).
audit: 1
name: {name}
description: ""
# Seed of every probe and search that takes one, unless a part's params set it.
seed: 0

# The models under test, by a name of your choosing. Never write a key here: key_env names
# the environment variable that holds it.
# Installed model plugins: {models}
models:
  target:
    plugin: {model}
    params: {{}}
    # key_env: OPENAI_API_KEY

# The probes, each on one or more of the models above, with the probe's parameters
# (`diptych plugins` lists each probe's parameters).
# Installed probes: {probes}
probes:
  - probe: {probe}
    models: [target]
    params: {{}}

# Annotators label the people of every image a probe makes; policy says whose labels score
# them in the report (mixed: human majority where present, else the automatic annotator).
# Installed annotators: {annotators}
labels:
  annotators: []
  policy: mixed

# Mitigations: a probe part run again with some parameters changed, compared with it.
mitigations: []
#  - name: pst-table5
#    baseline: pst
#    params: {{intervention: pst-table5}}

# Agent searches: new stereotyped identity pairs, or prompt interventions.
searches: []
#  - name: identities
#    kind: identities
#    target: target
#    agent_model: target
#    rounds: 1
#    per_round: 2

# One budget across every part (USD), and the most requests the audit may buy.
budget:
  max_cost: null
  max_requests: null

report:
  formats: [html, md, json]
"""
