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
