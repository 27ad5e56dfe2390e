"""diptych's pytest plugin gives these tests the fixtures diptych's own tests use:
diptych_workspace, scripted_model, fake_openai, run_probe and assert_round_trip."""

pytest_plugins = ["diptych.testing.pytest"]
