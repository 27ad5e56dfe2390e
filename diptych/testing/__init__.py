"""Test doubles for diptych and its plugin authors.

* Scripted models, one per capability (:mod:`diptych.testing.scripted`): they answer from a
  queue you fill with ``enqueue()``, record every call in ``.history`` and can be slowed down
  or made to fail on purpose. This package is itself a plugin: ``register_plugin(
  diptych.testing, "testing")`` makes ``scripted-chat``, ``scripted-likelihood``,
  ``scripted-images``, ``scripted-vision``, ``scripted-encoder``, ``scripted-annotator`` and
  the ``scripted`` probe available by name like any other plugin.
* :class:`FakeOpenAIServer` (:mod:`diptych.testing.fake_openai`): a loopback fake of the
  OpenAI API, for plugins that talk to OpenAI-compatible services.
* :func:`free_port`: a loopback port nothing listens on, for a server a test starts itself.
* The drills (:mod:`diptych.testing.drills`, imported on their own): faults, kills, damaged
  blobs and a full disk, run against the engine from outside; ``diptych doctor drill`` runs them.
* :mod:`diptych.testing.pytest`: the pytest plugin whose fixtures (``diptych_workspace``,
  ``scripted_model``, ``fake_openai``, ``run_probe``, ``assert_round_trip``) diptych's own tests
  and a scaffolded plugin's tests use.
* :mod:`diptych.testing.contract`: the contract every plugin keeps, one expectation at a time
  (``diptych plugins check``).
"""

from __future__ import annotations

import socket

from diptych.core.plugins.api import PLUGIN_API
from diptych.testing.fake_openai import (
    CONTENT_POLICY_MESSAGE,
    ChatRequest,
    FakeOpenAIServer,
    Fault,
    RecordedRequest,
    dalle3_revise,
    default_chat_reply,
)
from diptych.testing.scripted import (
    SCRIPTED_MODELS,
    ScriptedAnnotator,
    ScriptedChat,
    ScriptedEncoder,
    ScriptedImageGenerator,
    ScriptedLikelihood,
    ScriptedModel,
    ScriptedParams,
    ScriptedProbe,
    ScriptedVisionChat,
    register_annotators,
    register_models,
    register_probes,
)

#: The scripted plugin is written for the plugin API of the diptych it ships with.
DIPTYCH_PLUGIN_API = PLUGIN_API

__all__ = [
    "CONTENT_POLICY_MESSAGE",
    "DIPTYCH_PLUGIN_API",
    "SCRIPTED_MODELS",
    "ChatRequest",
    "FakeOpenAIServer",
    "Fault",
    "RecordedRequest",
    "ScriptedAnnotator",
    "ScriptedChat",
    "ScriptedEncoder",
    "ScriptedImageGenerator",
    "ScriptedLikelihood",
    "ScriptedModel",
    "ScriptedParams",
    "ScriptedProbe",
    "ScriptedVisionChat",
    "dalle3_revise",
    "default_chat_reply",
    "free_port",
    # The scripted plugin's hooks, so that the package registers as one plugin.
    "register_annotators",
    "register_models",
    "register_probes",
]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (the OS picks it; free when asked)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
