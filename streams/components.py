"""Building the parts settings choose: the embedder and the searcher.

The worker (embedding new messages), ``memstream serve`` (embedding queries) and the
CLI's ``search`` build them here, so all three use the same model and weights.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from projections.embedders import Embedder, MiniLMEmbedder, OpenAIEmbedder, QueryEmbeddingCache
from projections.search import RankingWeights, Searcher
from storage.lance_store import ProjectionStore
from streams.errors import StreamsError
from streams.settings import Settings

__all__ = ["make_embedder", "make_searcher", "ranking_weights"]


def make_embedder(settings: Settings) -> Embedder | None:
    """The embedder ``settings.embedder`` names, or None for ``none``."""
    if settings.embedder == "none":
        return None
    if settings.embedder == "openai":
        if not settings.openai_api_key:
            raise StreamsError("embedder openai needs MEMSTREAM_OPENAI_API_KEY")
        return OpenAIEmbedder(
            settings.openai_api_key,
            model=settings.openai_embedding_model,
            dimensions=settings.openai_dimensions,
            base_url=settings.openai_base_url,
        )
    return MiniLMEmbedder(threads=settings.embed_threads)


def vector_dimension(settings: Settings, embedder: Embedder | None) -> int | None:
    return embedder.dimension if embedder is not None else None


def ranking_weights(settings: Settings) -> RankingWeights:
    return RankingWeights(
        full_text=settings.fusion_full_text,
        vector=settings.fusion_vector,
        entity=settings.fusion_entity,
        rrf_k=settings.fusion_rrf_k,
    )


def make_searcher(
    settings: Settings,
    store: ProjectionStore,
    embedder: Embedder | None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> Searcher:
    """A searcher over ``store`` that embeds queries with ``embedder`` (if any)."""
    embed = QueryEmbeddingCache(embedder) if embedder is not None else None
    return Searcher(
        store,
        embed=embed,
        model=embedder.model if embedder is not None else None,
        weights=ranking_weights(settings),
        clock=clock,
    )
