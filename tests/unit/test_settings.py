"""Settings keep API keys secret: never shown, yet handed whole to a child process."""

from __future__ import annotations

import pytest

from memstream.settings import Settings


def test_api_keys_are_hidden_when_settings_are_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMSTREAM_ANTHROPIC_API_KEY", "sk-ant-very-secret")
    settings = Settings(openai_api_key="sk-openai-very-secret")
    shown = " ".join([repr(settings), str(settings), settings.model_dump_json()])
    assert "very-secret" not in shown
    assert settings.chosen_extractor == "anthropic"


def test_a_child_process_gets_the_keys_themselves() -> None:
    settings = Settings(openai_api_key="sk-openai-very-secret", api_port=9999)
    child = Settings.model_validate_json(settings.for_child())
    assert child.openai_api_key is not None
    assert child.openai_api_key.get_secret_value() == "sk-openai-very-secret"
    assert child.anthropic_api_key is None and child.api_port == 9999
    assert child == settings


def test_a_reserve_too_small_to_seal_the_journal_is_refused() -> None:
    """With no reserve a full disk leaves no room to seal journal segments: refused."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="must be at least 16"):
        Settings(min_free_mb=0)
    assert Settings(min_free_mb=16).min_free_bytes == 16 << 20


def test_the_settings_defaults_are_the_policies_defaults() -> None:
    """One place for each default: a deployment that sets nothing runs the policies the
    lifecycle jobs and the archiver assume when built without settings."""
    from memstream.policies.coldness import ColdPolicy
    from memstream.policies.lifecycle import LifecyclePolicy
    from memstream.policies.ranking_weights import RankingWeights
    from memstream.runtime.assembly import cold_policy, lifecycle_policy, ranking_weights

    assert lifecycle_policy(Settings()) == LifecyclePolicy()
    assert cold_policy(Settings()) == ColdPolicy()
    assert ranking_weights(Settings()) == RankingWeights()


def test_the_ranking_settings_default_to_the_ranking_knobs() -> None:
    """The ranking defaults are written once (policies/ranking_weights.py): settings left
    alone rank exactly as the searcher's own defaults do."""
    from memstream.policies.ranking_weights import RankingWeights
    from memstream.runtime.assembly import ranking_weights

    assert ranking_weights(Settings()) == RankingWeights()


def test_variables_fill_what_is_not_given_in_any_case_and_are_parsed_as_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``MEMSTREAM_<NAME>`` (any case) beneath the values given, parsed by the field;
    variables that name no setting are left alone; a bad value is refused by name."""
    from pydantic import ValidationError

    monkeypatch.setenv("MEMSTREAM_BATCH_SIZE", "17")
    monkeypatch.setenv("memstream_broker_port", "19999")
    monkeypatch.setenv("MEMSTREAM_CONTEXT_CUTOFF", "false")
    monkeypatch.setenv("MEMSTREAM_NOT_A_SETTING", "x")
    monkeypatch.setenv("MEMSTREAM_API_KEY", "ms-secret")
    settings = Settings()
    assert (settings.batch_size, settings.broker_port, settings.context_cutoff) == (
        17, 19999, False
    )  # fmt: skip
    assert settings.api_key is not None and settings.api_key.get_secret_value() == "ms-secret"
    assert Settings(batch_size=3).batch_size == 3, "a value given wins over the variable"
    monkeypatch.setenv("MEMSTREAM_BROKER_PORT", "0")
    with pytest.raises(ValidationError, match="broker_port"):
        Settings()
    assert Settings(broker_port=1).broker_port == 1


def test_the_command_lines_list_of_setting_names_is_the_settings_fields() -> None:
    """The names the command line checks variables against without loading the settings
    (memstream/setting_names.py) are the settings' own: add a setting to both."""
    from memstream.setting_names import SETTING_NAMES

    assert set(Settings.model_fields) == SETTING_NAMES
