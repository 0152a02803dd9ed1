"""memstream's settings: one frozen object, built once at the edge and passed down.

Values come from explicit arguments (command-line flags), then ``MEMSTREAM_*``
environment variables, then the defaults below. Library code never reads the
environment itself; it receives a ``Settings``.
"""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from memstream.policies.choices import EMBEDDERS, EmbedderName
from memstream.policies.coldness import ColdPolicy
from memstream.policies.doors import DoorRule
from memstream.policies.lifecycle import LifecyclePolicy
from memstream.policies.limits import CONTEXT_MIN_SIMILARITY, MAX_CONTEXT_TOKENS
from memstream.policies.linking import LINKS_PER_STATEMENT
from memstream.policies.ranking_weights import RankingWeights
from memstream.setting_names import from_environment
from memstream.storage.filesystems import Location, resolve_location
from memstream.storage.state_folder import DEFAULT_DATA, state_folder

__all__ = ["EMBEDDERS", "MIN_RESERVE_MB", "EmbedderName", "Settings"]

#: The least free space (MB) a deployment may be told to keep (``min_free_mb``).
MIN_RESERVE_MB = 16.0


#: The policies whose defaults are the settings' defaults (one place for each).
#: The ranking knobs' defaults, written once (policies/ranking_weights.py).
_RANKING = RankingWeights()
_LIFECYCLE = LifecyclePolicy()
_COLD = ColdPolicy()


def _minutes(gap: timedelta) -> float:
    return gap.total_seconds() / 60


class Settings(BaseModel):
    """Configuration of a memstream deployment.

    Attributes:
        data: folder (or ``s3://bucket/prefix``) holding the projections, the event
            archive and the cold store.
        s3_endpoint / s3_region: an S3-compatible endpoint (``http://host:port``; empty
            means AWS) and its region, for ``s3://`` data. Credentials come from the
            usual ``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` variables.
        state_dir: a local folder for the stream processor's state and the logs
            (default: the data folder, or ``./memstream-state`` when the data is on S3).
        kafka: bootstrap address of a Kafka cluster; empty means the embedded broker.
        broker_host: where the embedded broker listens.
        broker_port: the embedded broker's port.
        messages_partitions: partitions of ``memory.messages`` (keyed by user).
        batch_size: most records a worker applies in one LanceDB write.
        batch_within_seconds: longest a partial batch waits, from the publish of its
            oldest record, before it is applied. Each table a batch writes is a new LanceDB
            version, about as dear for ten rows as for hundreds: at 100 messages/s,
            batches of what arrived meanwhile took the cores the embedder needed (0.1 s:
            embedding lag p99 10.9 s; 0.5 s: 5.3 s), while at 1,000 messages/s
            publish-to-searchable stays p99 618 ms (bench/embedding.py, bench/ingest.py).
        optimize_every_seconds: how often the worker compacts tables and folds new rows
            into the indexes.
        checkpoint_every_seconds: how often the worker writes its checkpoints, session
            rows and watermarks (and whenever it goes idle); a crash re-applies at most
            this much of the log, idempotently. A read given a write token answers once
            the checkpoints hold the write, so this is also most of what such a read waits
            beyond the worker's batch.
        retain_versions_seconds: table versions older than this are removed on compaction:
            how far back ``as_of`` reads reach (a day; a week is 604800, at the cost of
            the replaced files kept that long).
        served_log: record every context block and search answer given through a
            front door as a ``context_served`` event (who asked, the question, the
            memory ids with their scores, the answer's digest; never the memories'
            text): what an agent was shown, and where a memory was used.
        served_retain_days: how long the worker keeps what was served (older rows are
            dropped by upkeep, and a replay leaves them out).
        consumer_group: the faust application id (one consumer group per deployment).
        log_level: logging level of memstream's own loggers (``DEBUG`` also shows the
            broker client's and faust's INFO lines, which are quiet otherwise).
        log_format: ``text`` (a line per record) or ``json`` (one JSON object per line).
        metrics_host / metrics_port: where a worker (``up``, ``worker``) and an embedder
            (``embed``) serve ``/metrics``, ``/healthz`` and ``/readyz``; 0: nowhere.
            The API serves them on its own port.
        ready_max_lag: the most records a worker may have waiting in its partitions and
            still say it is ready (``/readyz``).
        stall_seconds: how long a partition's consumer may stand still while records
            wait before it is reported (once, as a WARNING naming the partition).
        embedder: ``minilm`` (offline, default), ``e5-small`` (offline, better recall,
            slower; the ``e5`` extra), ``openai`` (needs ``openai_api_key``), or
            ``none`` (no vectors: full text and entities only). Changing it on a store
            that has vectors: ``memstream reembed``.
        embed_threads: CPU threads the MiniLM model uses for the memories it embeds.
        query_embed_threads: CPU threads it uses for a search's query embedded on its
            own. A query's products run over integers
            (:mod:`memstream.adapters.minilm_graph`): a 12-token query's run takes 1.4
            ms on one thread and 1.3 on two, and the second thread takes the core the
            rest of the search runs on beside it (on 2 cores a 100,000-memory search's
            p50 was 11.0 ms with 1 against 12.0 with 2, a 10,000-memory one's the same).
            The queries of concurrent searches are embedded together on one thread.
        embed_niceness: how much lower than the rest of the worker the embedding lane's
            CPU priority is (its thread's nice value, :mod:`memstream.runtime.lanes`), and
            the documents lane's (its process's); 0 leaves them equal. The lanes then
            take the cycles searches and ingest leave idle.
        embed_batch_size: most messages embedded in one call (the model sorts a call's
            texts by length, so a backlog taken 256 at a time pads little: MiniLM alone
            embeds LoCoMo turns at 208/s in calls of 256, 149/s in calls of 64).
        embed_within_seconds: longest a partial batch waits to be embedded.
        document_max_bytes: the largest document accepted, in bytes (larger ones are
            refused with 413 before anything is stored).
        document_max_pages: the most pages of a PDF the documents lane reads (a longer
            one fails, ``too_many_pages``).
        document_readers: how many documents the documents lane reads at once (a
            process each, in turns across tenants and users: a big document holds one
            reader, the others' documents pass it on the rest).
        document_read_seconds / document_read_seconds_per_megabyte: the longest parsing
            and chunking a document may take, and more for each megabyte of it (a 50 MB
            Markdown file takes about 80 s of one core), and the longest finding the
            facts of one part of it may take; past it the process is killed and the
            document fails, ``too_complex`` (a part goes without its facts, saying why).
        embed_context_turns: earlier turns of the session whose vectors each message's
            vector is averaged with (better recall; 0 turns it off).
        openai_api_key / openai_base_url: the OpenAI API (base URL for another endpoint
            that speaks it).
        openai_embedding_model / openai_dimensions: the OpenAI model and vector length.
        api_host / api_port: where ``memstream up`` and ``memstream serve`` answer HTTP.
        public_hosts: host names, comma-separated, that this deployment's doors (the API,
            its console and MCP, the metrics port) answer to beyond loopback names and the
            address they are bound to (``memory.example.com``, a container's service
            name); a request naming any other Host is refused (421), which stops DNS
            rebinding.
        browser_origins: other sites' pages, comma-separated origins
            (``https://app.example.com``), that may call the API from a browser (CORS is
            answered for them); any other page's requests are refused (403), with keys
            or without.
        api_read_consistency_seconds: how stale a server's view of the tables may be: it
            looks for what the worker wrote at most this often (a read given a write
            token, ``after_write``, sees the newest).
        read_after_write_seconds: how long a read given a write token waits at most for
            the worker to apply that write before it answers 503 with ``Retry-After``.
        api_metrics_open: with API keys on, whether the API's ``/metrics`` answers without
            a key (for a scraper on a private network); otherwise it asks for an admin
            key, since its counts are the whole deployment's.
        console_session_hours: how long a console login lasts (its cookie expires then).
        console_sample_seconds: how often the API samples the log's end offsets and what
            is applied, for the console's charts (the last hour of samples is kept).
        api_url: the server client commands (search, context, stats...) ask; empty: the
            one running for the data folder, if any, else they open the data folder.
        searches_at_once / searches_waiting: searches (and context blocks) a process
            answers at once, and how many more may wait; beyond, a search is refused
            with 503 and ``Retry-After: 1`` (no queue grows without bound). On 2 cores,
            2 and 16: 50 clients at once on a 50,000-memory user are answered at ~100
            searches/s, p99 ~250 ms, the others told to come back (bench/query.py
            --clients 50).
        api_key: the key client commands send to the API (``Authorization: Bearer``), where
            the server requires keys (``memstream keys``).
        key_searches_per_second / key_searches_burst: reads (searches, context blocks,
            memories, entities, stats) one API key may make a second, and at once;
            beyond, 429 with ``Retry-After``. 0: no limit.
        key_events_per_second / key_events_burst: events (and memory commands) one key
            may publish a second, and at once.
        key_characters_per_second / key_characters_burst: characters of events' content
            one key may publish a second, and at once: the worker's work grows with
            characters, not events (24 pastes of 100,000 characters are 2.4 million).
        max_body_bytes: a request body larger than this is refused with 413.
        seal_events: seal every record memstream writes for a user under the user's data
            key (AES-256-GCM) before it enters the journal, the log or the event archive,
            so erasing the user (destroying the key) reaches every copy; off writes
            plaintext (sealed records are still read).
        data_keys_dir: the data key store, a folder or ``s3://`` prefix (default:
            ``data-keys`` in the data location, where every host reaches it; a store an
            older memstream made in the local state is used while it is there). Its
            backups, or a versioned bucket's old versions, are what an erasure must also
            reach.
        data_keys_secret: seals the data keys at rest (needed for a key store on S3, so
            that reading the bucket does not open the records sealed under them).
        search_cache_rows: most rows (memories and vectors) of recently searched users
            a searching process keeps in memory (about 1.6 kB a memory with 384-dimension
            vectors); a user who does not fit is searched in the tables; 0 turns it off.
        fusion_*: weights of each retriever in reciprocal rank fusion.
        neighbour_share: share of the best fused score among the turns before a turn in
            its session (and among those after it) the turn gets (0 turns it off).
        neighbour_reach: how many turns before and after count.
        reply_share: share of an assistant's reply's score that the user's statement just
            before it gets at least (0: none).
        restatement_weight: share of its score an assistant's short reply to a user's
            statement (a restatement of it) is ranked at; the statement gets all of it
            (1: the reply as found).
        question_weight: share of its score a user's question found is ranked at (1:
            as any turn).
        link_share: share of a found memory's score (times the link's strength) that
            each earlier memory it refers back to gets (0 turns following links off).
        link_reach: how many of the best candidates have their links followed.
        links_per_statement: how many earlier statements consolidation links each of a
            session's statements to, the nearest in meaning (0: none).
        speaker_bonus: ranking bonus of the memories said by the one speaker a query
            names (0 turns it off).
        extractor: what consolidates closed sessions into facts (and chooses their links
            among the nearest earlier statements) and writes weekly
            reflections: ``local`` (rules, offline, deterministic), ``anthropic``,
            ``openai``, or ``auto`` (default: Anthropic when ``anthropic_api_key`` is set,
            else OpenAI when ``openai_api_key`` is set, else local).
        anthropic_api_key / anthropic_base_url / anthropic_model: the Anthropic API.
        openai_chat_model: the OpenAI model that consolidates and reflects (with
            ``openai_base_url``, the name a local server knows its model by).
        openai_json_mode: how the answer's JSON shape is asked of that model:
            ``schema`` (strict JSON schema), ``object`` (JSON mode, the schema in the
            prompt), ``prompt`` (the schema in the prompt only), or ``auto`` (schema
            first, the next one when a server refuses it).
        model_concurrency: sessions consolidated at once by a model.
        model_max_retries: retries of a model call after a rate limit or server error
            (exponential backoff); a session still failing is tried again later.
        model_malformed_retries: how many times an answer that is not the JSON asked
            for is asked for again before the session counts as failed.
        session_gap_minutes: event time without a turn after which a session closes.
        session_idle_minutes: processing time without a turn after which it closes.
        lifecycle_every_seconds: how often the worker closes and consolidates sessions.
        consolidate_per_tick: most sessions one tick closes and consolidates (the rest
            wait for the next tick).
        consolidate_characters_per_tick: most text (characters of their turns) the
            sessions one tick consolidates hold; a session that would pass it waits for
            the next tick, unless it is the tick's first.
        lifecycle_max_defer_seconds: longest the timer waits while ingest is
            backlogged before it runs anyway.
        decay_every_hours / reflect_every_days: how often the worker decays
            confidences and writes weekly reflections.
        prune_threshold: confidence under which decay soft-deletes a memory.
        archive_*: who is cold (see :mod:`memstream.policies.coldness`): unused (not
            returned by a search, or never since it happened) for
            ``archive_idle_days``, or for ``archive_long_idle_days`` when its
            importance is at least ``archive_keep_importance`` or it was used at least
            ``archive_keep_accesses`` times; and, beyond ``archive_hot_budget`` hot
            memories of a user, the coldest of those unused for
            ``archive_budget_min_idle_days`` (hotness half life
            ``archive_half_life_days``).
        archive_every_hours: how often the worker archives (first run one interval
            after it starts); ``archive_per_run`` caps one run.
        decay_rate_*: decay rate per kind (per day^0.8).
        journal: ``auto`` (default: on with the embedded broker, whose log lives in
            memory), ``on`` or ``off``. When on, every publish is fsync'd to the intake
            journal in ``state_dir`` before it is acknowledged.
        stop_timeout_seconds: how long a clean stop (SIGTERM, SIGINT) may take to
            apply and archive what was acknowledged before it stops anyway (the
            journal keeps the rest for the next start).
        min_free_mb: free space the data location and the state folder must keep:
            below it publishes are refused (507) and upkeep does not write. At least
            16: a smaller reserve is refused at start (a full disk must leave room to
            seal journal segments and store checkpoints).
        context_simple_tokens / context_complex_tokens: the default budget of a context
            block for a simple and for a complex query.
        context_cutoff: leave out of a context block the results that bear not on the
            question (too little of its words' weight, no name of it, and less similar
            in meaning than ``context_min_similarity``); off, a block holds what the
            search found.
        context_min_similarity: with ``context_cutoff``, the cosine at which a result
            saying too little of the question's words and no name of it still bears on
            it.
        embed_backfill_every_seconds: how often the worker looks in the projections for
            memories without a vector (after a restart, the log no longer holds the
            messages that would have been embedded).
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    data: str = DEFAULT_DATA
    s3_endpoint: str = ""
    s3_region: str = ""
    state_dir: str = ""
    kafka: str | None = None
    broker_host: str = "127.0.0.1"
    broker_port: int = Field(default=19092, ge=1, le=65535)
    messages_partitions: int = Field(default=8, ge=1, le=1024)
    batch_size: int = Field(default=2000, ge=1)
    batch_within_seconds: float = Field(default=0.5, gt=0)
    optimize_every_seconds: float = Field(default=30.0, gt=0)
    checkpoint_every_seconds: float = Field(default=0.25, ge=0)
    retain_versions_seconds: float = Field(default=86_400.0, ge=0)
    served_log: bool = True
    served_retain_days: float = Field(default=30.0, gt=0)
    consumer_group: str = "memstream"
    log_level: str = Field(default="INFO", pattern=r"(?i)^(debug|info|warning|error|critical)$")
    log_format: Literal["text", "json"] = "text"
    metrics_host: str = "127.0.0.1"
    metrics_port: int = Field(default=8788, ge=0, le=65535)
    ready_max_lag: int = Field(default=10_000, ge=0)
    stall_seconds: float = Field(default=120.0, gt=0)
    embedder: EmbedderName = "minilm"
    embed_threads: int = Field(default=2, ge=1, le=64)
    query_embed_threads: int = Field(default=1, ge=1, le=64)
    embed_niceness: int = Field(default=10, ge=0, le=19)
    embed_batch_size: int = Field(default=256, ge=1, le=2048)
    embed_within_seconds: float = Field(default=0.5, gt=0)
    document_max_bytes: int = Field(default=50_000_000, ge=1)
    document_max_pages: int = Field(default=2000, ge=1)
    document_readers: int = Field(default=2, ge=1, le=32)
    document_read_seconds: float = Field(default=900.0, gt=0)
    document_read_seconds_per_megabyte: float = Field(default=20.0, ge=0)
    embed_context_turns: int = Field(default=2, ge=0, le=10)
    openai_api_key: SecretStr | None = None
    openai_base_url: str | None = None
    openai_embedding_model: str = "text-embedding-3-small"
    openai_dimensions: int = Field(default=256, ge=1, le=3072)
    api_host: str = "127.0.0.1"
    api_port: int = Field(default=8787, ge=1, le=65535)
    api_url: str = Field(default="", pattern=r"^(https?://\S+)?$")
    public_hosts: str = Field(default="", pattern=r"^[A-Za-z0-9.:\[\], _-]*$", max_length=4000)
    browser_origins: str = Field(default="", pattern=r"^[A-Za-z0-9.:/\[\], _-]*$", max_length=4000)
    api_read_consistency_seconds: float = Field(default=0.5, ge=0)
    read_after_write_seconds: float = Field(default=10.0, gt=0, le=300)
    api_metrics_open: bool = False
    console_session_hours: float = Field(default=8.0, gt=0, le=24 * 30)
    console_sample_seconds: float = Field(default=15.0, ge=1, le=3600)
    search_cache_rows: int = Field(default=400_000, ge=0)
    searches_at_once: int = Field(default=2, ge=1, le=256)
    searches_waiting: int = Field(default=16, ge=0, le=100_000)
    api_key: SecretStr | None = None
    key_searches_per_second: float = Field(default=50.0, ge=0)
    key_searches_burst: float = Field(default=100.0, ge=1)
    key_events_per_second: float = Field(default=2000.0, ge=0)
    key_events_burst: float = Field(default=10_000.0, ge=1)
    key_characters_per_second: float = Field(default=500_000.0, ge=0)
    key_characters_burst: float = Field(default=5_000_000.0, ge=1)
    max_body_bytes: int = Field(default=4_000_000, ge=1024)
    seal_events: bool = True
    data_keys_dir: str = ""
    data_keys_secret: SecretStr | None = None
    fusion_full_text: float = Field(default=_RANKING.full_text, ge=0)
    fusion_vector: float = Field(default=_RANKING.vector, ge=0)
    fusion_entity: float = Field(default=_RANKING.entity, ge=0)
    fusion_rrf_k: float = Field(default=_RANKING.rrf_k, gt=0)
    neighbour_share: float = Field(default=_RANKING.neighbour_share, ge=0, le=1)
    neighbour_reach: int = Field(default=_RANKING.neighbour_reach, ge=0, le=10)
    reply_share: float = Field(default=_RANKING.reply_share, ge=0, le=2)
    restatement_weight: float = Field(default=_RANKING.restatement_weight, ge=0, le=1)
    question_weight: float = Field(default=_RANKING.question_weight, ge=0, le=1)
    link_share: float = Field(default=_RANKING.link_share, ge=0, le=3)
    link_reach: int = Field(default=_RANKING.link_reach, ge=0, le=20)
    links_per_statement: int = Field(default=LINKS_PER_STATEMENT, ge=0, le=20)
    speaker_bonus: float = Field(default=_RANKING.speaker, ge=0)
    extractor: Literal["auto", "local", "anthropic", "openai"] = "auto"
    anthropic_api_key: SecretStr | None = None
    anthropic_base_url: str | None = None
    anthropic_model: str = "claude-haiku-4-5"
    openai_chat_model: str = "gpt-4.1-mini"
    openai_json_mode: Literal["auto", "schema", "object", "prompt"] = "auto"
    model_concurrency: int = Field(default=_LIFECYCLE.model_concurrency, ge=1, le=64)
    model_max_retries: int = Field(default=4, ge=0, le=20)
    model_malformed_retries: int = Field(default=2, ge=0, le=10)
    session_gap_minutes: float = Field(default=_minutes(_LIFECYCLE.session_gap), gt=0)
    session_idle_minutes: float = Field(default=_minutes(_LIFECYCLE.session_idle), gt=0)
    lifecycle_every_seconds: float = Field(default=10.0, gt=0)
    consolidate_per_tick: int = Field(default=1000, ge=1)
    consolidate_characters_per_tick: int = Field(default=400_000, ge=1)
    lifecycle_max_defer_seconds: float = Field(default=60.0, ge=0)
    decay_every_hours: float = Field(default=24.0, gt=0)
    reflect_every_days: float = Field(default=7.0, gt=0)
    prune_threshold: float = Field(default=_LIFECYCLE.prune_threshold, ge=0, le=1)
    archive_idle_days: float = Field(default=_COLD.idle_days, ge=0)
    archive_keep_importance: float = Field(default=_COLD.keep_importance, ge=0, le=1)
    archive_keep_accesses: int = Field(default=_COLD.keep_accesses, ge=1)
    archive_long_idle_days: float = Field(default=_COLD.long_idle_days, ge=0)
    archive_hot_budget: int = Field(default=_COLD.hot_budget, ge=0)
    archive_budget_min_idle_days: float = Field(default=_COLD.budget_min_idle_days, ge=0)
    archive_half_life_days: float = Field(default=_COLD.half_life_days, gt=0)
    archive_every_hours: float = Field(default=24.0, gt=0)
    archive_per_run: int = Field(default=10_000, ge=1)
    decay_rate_fact: float = Field(default=_LIFECYCLE.decay_rates["fact"], ge=0)
    decay_rate_preference: float = Field(default=_LIFECYCLE.decay_rates["preference"], ge=0)
    decay_rate_procedure: float = Field(default=_LIFECYCLE.decay_rates["procedure"], ge=0)
    decay_rate_opinion: float = Field(default=_LIFECYCLE.decay_rates["opinion"], ge=0)
    decay_rate_reflection: float = Field(default=_LIFECYCLE.decay_rates["reflection"], ge=0)
    journal: Literal["auto", "on", "off"] = "auto"
    stop_timeout_seconds: float = Field(default=30.0, gt=0)
    #: at least 16 MB: below that, a full disk leaves no room to seal journal segments
    #: and store checkpoints, and the journal would be produced again and again
    min_free_mb: float = 256.0
    embed_backfill_every_seconds: float = Field(default=60.0, gt=0)
    context_simple_tokens: int = Field(default=1000, ge=50, le=MAX_CONTEXT_TOKENS)
    context_complex_tokens: int = Field(default=3000, ge=50, le=MAX_CONTEXT_TOKENS)
    context_cutoff: bool = True
    context_min_similarity: float = Field(default=CONTEXT_MIN_SIMILARITY, ge=-1.0, le=1.0)

    @model_validator(mode="before")
    @classmethod
    def _environment_beneath(cls, given: Any) -> Any:
        """Each setting not given from its ``MEMSTREAM_<NAME>`` variable (any case), as
        text for the field to parse. Every setting is one scalar, so this is the whole
        of the rule: no settings library (pydantic-settings costs a command line 0.1 s
        of imports: its asyncio, CLI, dotenv and cloud-secret sources)."""
        if not isinstance(given, dict):
            return given
        return {**from_environment(os.environ, cls.model_fields), **given}

    @field_validator("min_free_mb")
    @classmethod
    def _room_to_seal(cls, value: float) -> float:
        if value < MIN_RESERVE_MB:
            raise ValueError(
                f"must be at least {MIN_RESERVE_MB:.0f} (MB, MEMSTREAM_MIN_FREE_MB): a full "
                "disk must leave room to seal the intake journal and store checkpoints"
            )
        return value

    @property
    def chosen_extractor(self) -> Literal["local", "anthropic", "openai"]:
        """The extractor ``auto`` resolves to with the keys at hand."""
        if self.extractor != "auto":
            return self.extractor
        if _given(self.anthropic_api_key):
            return "anthropic"
        if _given(self.openai_api_key):
            return "openai"
        return "local"

    def for_child(self) -> str:
        """These settings, secrets included, as JSON for a child process (sent over a
        pipe, never printed; read back with ``Settings.model_validate_json``)."""
        document = self.model_dump(mode="json")
        for name in _SECRETS:
            secret = getattr(self, name)
            document[name] = secret.get_secret_value() if secret is not None else None
        return json.dumps(document)

    def door_rule(self, bound_host: str, port: int) -> DoorRule:
        """The Host and Origin rule of a door bound to ``bound_host:port``."""
        return DoorRule.serving(
            bound_host, port, _listed(self.public_hosts), _listed(self.browser_origins)
        )

    @property
    def browser_origin_list(self) -> list[str]:
        """``browser_origins`` as a list."""
        return _listed(self.browser_origins)

    @property
    def embedded(self) -> bool:
        """True when memstream runs its own broker."""
        return not self.kafka

    @property
    def bootstrap(self) -> str:
        """The Kafka bootstrap address to connect to."""
        return self.kafka or f"{self.broker_host}:{self.broker_port}"

    @property
    def retain_versions(self) -> timedelta:
        return timedelta(seconds=self.retain_versions_seconds)

    @property
    def retain_served(self) -> timedelta:
        return timedelta(days=self.served_retain_days)

    @property
    def data_location(self) -> Location:
        """Where the data lives, with the S3 endpoint and region when it is on S3."""
        return self.location_of(self.data)

    def location_of(self, uri: str) -> Location:
        """A folder or ``s3://`` prefix, with this deployment's S3 endpoint and region."""
        return resolve_location(
            uri, s3_endpoint=self.s3_endpoint or None, s3_region=self.s3_region or None
        )

    @property
    def local_dir(self) -> Path:
        """The local folder for the stream processor's state and the logs."""
        return state_folder(self.data, self.state_dir)

    @property
    def data_keys_location(self) -> Location:
        """Where the per-user data keys live (see ``data_keys_dir``)."""
        if self.data_keys_dir:
            return self.location_of(self.data_keys_dir)
        legacy = self.local_dir / "data-keys"  # where an older memstream kept them
        if legacy.is_dir():
            return self.location_of(str(legacy))
        return self.data_location.child("data-keys")

    @property
    def api_keys_location(self) -> Location:
        """Where the API keys live: ``api-keys`` in the data location."""
        return self.data_location.child("api-keys")

    @property
    def signing_key_location(self) -> Location:
        """Where the deployment's signing key lives: ``signing-key`` in the data location
        (every process signs with the same key)."""
        return self.data_location.child("signing-key")

    @property
    def erasure_receipts_location(self) -> Location:
        """Where erasures' receipts are kept: ``erasure-receipts`` in the data location."""
        return self.data_location.child("erasure-receipts")

    @property
    def console_sessions_location(self) -> Location:
        """Where the console's session-signing secret lives: ``console-sessions`` in the
        data location (every API replica signs and checks with it)."""
        return self.data_location.child("console-sessions")

    @property
    def log_dir(self) -> Path:
        return self.local_dir / "logs"

    @property
    def journaled(self) -> bool:
        """True when publishes are fsync'd to the intake journal before they are
        acknowledged."""
        return self.journal == "on" or (self.journal == "auto" and self.embedded)

    @property
    def journal_dir(self) -> Path:
        return self.local_dir / "journal"

    @property
    def min_free_bytes(self) -> int:
        return int(self.min_free_mb * 1024 * 1024)


#: The settings whose values are secrets (shown as ``**********``).
_SECRETS = ("openai_api_key", "anthropic_api_key", "api_key", "data_keys_secret")


def _listed(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _given(secret: SecretStr | None) -> bool:
    return secret is not None and bool(secret.get_secret_value())
