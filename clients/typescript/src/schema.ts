// The memstream HTTP API's types, generated from its OpenAPI document by
// openapi-typescript (npm run generate). Do not edit: the test fails when they drift.
export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Healthz
         * @description Liveness: answers while the process runs, touching nothing else.
         */
        get: operations["healthz_healthz_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readyz
         * @description Whether this server can serve: the broker answers, the projections can be
         *     read, and the workers are within ``ready_max_lag`` records of the log.
         */
        get: operations["readyz_readyz_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/context": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Post Context
         * @description The memory block to put before an agent's answer (``context`` is null when
         *     nothing relevant is found).
         */
        post: operations["post_context_v1_context_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Documents
         * @description The user's documents with their status, newest first.
         */
        get: operations["list_documents_v1_documents_get"];
        put?: never;
        /**
         * Add Document
         * @description Submit a document (a file, or text); its chunks become searchable memories.
         */
        post: operations["add_document_v1_documents_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/documents/{document_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Document
         * @description A document's status: ``received``, ``chunked``, ``indexed``, ``empty``,
         *     ``failed`` (with why) or ``removed``, its chunk and fact counts; ``?wait=N``
         *     waits up to N seconds for it to be done.
         */
        get: operations["get_document_v1_documents__document_id__get"];
        put?: never;
        post?: never;
        /**
         * Remove Document
         * @description Remove a document: the chunks and facts of every version of it are
         *     soft-deleted (kept for history, never found again). Submitting it again starts
         *     it afresh; the original bytes go when the user is erased. ``?wait=N`` waits up
         *     to N seconds for the removal to be applied (200 then).
         */
        delete: operations["remove_document_v1_documents__document_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/entities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Entity
         * @description An entity's profile, its memories in the project's scope (the user's memories
         *     of no project, and the project's).
         */
        get: operations["get_entity_v1_entities_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Post Events
         * @description Validate one event or a list of them, publish them, answer their ids.
         */
        post: operations["post_events_v1_events_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/freshness": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Freshness
         * @description How fresh reads of the user are: the position the projections hold of the
         *     user's partitions, the user's writes not applied yet and memories waiting for
         *     their vector. With ``after_write``, answers once that write is applied (503 with
         *     ``Retry-After`` after a bounded wait): ``publish --wait`` asks this.
         */
        get: operations["get_freshness_v1_freshness_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Keys
         * @description The admin key's tenant's keys (never the keys themselves, nor their hashes).
         */
        get: operations["list_keys_v1_keys_get"];
        put?: never;
        /**
         * Create Key
         * @description A new key of the admin key's tenant; the key itself is in this answer only.
         */
        post: operations["create_key_v1_keys_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke Key
         * @description Revoke one of the tenant's keys: it is refused from the next request on.
         */
        delete: operations["revoke_key_v1_keys__key_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Memories
         * @description The user's memories a page at a time, newest (or oldest) first, archived ones
         *     included and marked; ``next_cursor`` gives the next page, which memories added
         *     meanwhile never shift.
         */
        get: operations["list_memories_v1_memories_get"];
        put?: never;
        /**
         * Remember
         * @description ``remember_fact``: store a memory stated by the user or an agent.
         */
        post: operations["remember_v1_memories_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{memory_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Memory
         * @description A memory; with ``expand=true`` an archived memory's original, read from cold
         *     storage exactly as it was archived (three expansions in 30 days restore it).
         */
        get: operations["get_memory_v1_memories__memory_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{memory_id}/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Confirm
         * @description ``confirm_fact``: full confidence, never decays.
         */
        post: operations["confirm_v1_memories__memory_id__confirm_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{memory_id}/correct": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Correct
         * @description ``correct_fact``: the new content replaces the memory, which stays as history.
         */
        post: operations["correct_v1_memories__memory_id__correct_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{memory_id}/explain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Explain
         * @description Why a memory exists: the turns it came from, what replaced what, commands,
         *     entities, and how its confidence got where it is.
         */
        get: operations["explain_v1_memories__memory_id__explain_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{memory_id}/forget": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Forget
         * @description ``forget``: never returned by search again; kept for history.
         */
        post: operations["forget_v1_memories__memory_id__forget_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{memory_id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get History
         * @description The memories that replaced one another through this one, oldest first.
         */
        get: operations["get_history_v1_memories__memory_id__history_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{memory_id}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Restore
         * @description Bring an archived memory back to the hot tables, with its vector.
         */
        post: operations["restore_v1_memories__memory_id__restore_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/weak": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Weak Memories
         * @description Memories near the prune threshold, weakest first.
         */
        get: operations["weak_memories_v1_memories_weak_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Post Search
         * @description Hybrid search. The ``Server-Timing`` header says where the time went.
         */
        post: operations["post_search_v1_search_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/served": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Served
         * @description The answers callers were given of the user's memory, newest first: who asked
         *     (door, key, agent, session), the question, the memory ids with their scores and
         *     the answer's digest; with ``memory_id``, those that held that memory.
         */
        get: operations["list_served_v1_served_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/served/{served_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Served
         * @description One answer as recorded, and ``rebuilt``: its text rendered again from the
         *     memory ids over memory as it stood when it was read, its digest and whether
         *     that is the digest recorded.
         */
        get: operations["get_served_v1_served__served_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get Stats */
        get: operations["get_stats_v1_stats_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Users
         * @description The users memory is held of, each with its memories, archived memories and
         *     when its newest memory happened: a key's own tenant's (``tenant`` may only name
         *     it); every tenant's for the operator (or the one ``tenant`` names).
         */
        get: operations["get_users_v1_users_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Erase User
         * @description Erase everything memstream keeps of a user, for good (a tenant admin key): the
         *     user's data keys are destroyed, so nothing sealed for the user in the log, the
         *     journal or the event archive can be read again, and every projection and the
         *     cold store drop the user. 200 when all of it is done, with the erasure's signed
         *     receipt (what each store removed, and every read path probed for the user with
         *     nothing found); 202 when the keys are gone and the worker has not dropped the
         *     rows yet (asking again waits for it).
         */
        delete: operations["erase_user_v1_users__user_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{user_id}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export User
         * @description Everything memstream holds of a user (a tenant admin key): ``events``, the
         *     user's events as JSON lines, which ``memstream import`` turns back into the same
         *     memory in another store; ``json``, the user's rows of every projection;
         *     ``markdown``, a dossier to read. Streamed as it is read.
         */
        get: operations["export_user_v1_users__user_id__export_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * AsOf
         * @description The moment an ``as_of`` read reflects.
         */
        AsOf: {
            /** Asked */
            asked: string;
            /** Position */
            position: string;
            /**
             * Recorded At
             * Format: date-time
             */
            recorded_at: string;
        };
        /**
         * ConfirmFact
         * @description The user confirms memory ``memory_id``: full confidence, and it never decays.
         */
        ConfirmFact: {
            /** Event Id */
            event_id?: string;
            /** Memory Id */
            memory_id: string;
            /**
             * Occurred At
             * Format: date-time
             */
            occurred_at?: string;
            /**
             * Schema Version
             * @default 1
             * @constant
             */
            schema_version?: 1;
            /**
             * Type
             * @default confirm_fact
             * @constant
             */
            type: "confirm_fact";
            /** User Id */
            user_id: string;
        };
        /**
         * ContextRequest
         * @description What ``POST /v1/context`` takes.
         */
        ContextRequest: {
            /** After Write */
            after_write?: string | null;
            /** As Of */
            as_of?: string | null;
            /** Budget Tokens */
            budget_tokens?: number | null;
            /** Cutoff */
            cutoff?: boolean | null;
            /** Now */
            now?: string | null;
            /** Project Id */
            project_id?: string | null;
            /** Query */
            query: string;
            /** User Id */
            user_id: string;
            /**
             * Wait
             * @default applied
             * @enum {string}
             */
            wait?: "applied" | "vectors";
        };
        /**
         * CorrectFact
         * @description "That is wrong": ``new_content`` replaces memory ``memory_id`` (which stays as history).
         *
         *     The service that publishes it copies the old memory's kind, subject and attribute,
         *     so the correction is applied from this event alone.
         */
        CorrectFact: {
            /**
             * Attribute
             * @default null
             */
            attribute?: string | null;
            /** Event Id */
            event_id?: string;
            /**
             * Kind
             * @default fact
             * @enum {string}
             */
            kind?: "fact" | "preference" | "procedure" | "opinion" | "reflection";
            /** Memory Id */
            memory_id: string;
            /** New Content */
            new_content: string;
            /**
             * Occurred At
             * Format: date-time
             */
            occurred_at?: string;
            /**
             * Project Id
             * @default null
             */
            project_id?: string | null;
            /**
             * Schema Version
             * @default 1
             * @constant
             */
            schema_version?: 1;
            /**
             * Subject
             * @default null
             */
            subject?: string | null;
            /**
             * Type
             * @default correct_fact
             * @constant
             */
            type: "correct_fact";
            /** User Id */
            user_id: string;
            /**
             * Valid From
             * @default null
             */
            valid_from?: string | null;
        };
        /** Correction */
        Correction: {
            /** Content */
            content: string;
            /** User Id */
            user_id: string;
        };
        /**
         * DocumentSource
         * @description Where a chunk of a document comes from: what an agent cites (``citation``, as
         *     ``Lease, p. 3, §Renewal``).
         */
        DocumentSource: {
            /** Chunk */
            chunk: number;
            /** Citation */
            citation: string;
            /** Document Id */
            document_id: string;
            /** Headings */
            headings: string[];
            /** Last Page */
            last_page: number;
            /** Page */
            page: number;
            /** Title */
            title: string;
        };
        /**
         * ErasureAnswer
         * @description What ``DELETE /v1/users/{user_id}`` answers.
         */
        ErasureAnswer: {
            /** Complete */
            complete: boolean;
            /** Held */
            held: boolean;
            /** Keys Destroyed */
            keys_destroyed: string[];
            receipt?: components["schemas"]["ErasureReceipt"] | null;
            /** Requested At */
            requested_at: string;
            /** Took Seconds */
            took_seconds: number;
            /** User Id */
            user_id: string;
        };
        /**
         * ErasureReceipt
         * @description A finished erasure's proof (see :mod:`memstream.application.erasure_receipts`):
         *     check it with ``memstream erase --verify``.
         */
        ErasureReceipt: {
            /** Checked At */
            checked_at: string;
            /** Nothing Found */
            nothing_found: boolean;
            /** Probes */
            probes: components["schemas"]["ReceiptProbe"][];
            removed: components["schemas"]["ReceiptRemoved"];
            /** Requested At */
            requested_at: string;
            signature: components["schemas"]["ReceiptSignature"];
            /** User Id */
            user_id: string;
            /** Version */
            version: number;
        };
        /**
         * ErrorBody
         * @description The body of every error answer.
         */
        ErrorBody: {
            /** Accepted */
            accepted?: string[] | null;
            /** Detail */
            detail: string | string[] | components["schemas"]["EventProblems"][];
        };
        /**
         * EventProblems
         * @description What is wrong with one event of a batch (``index`` counts from 0).
         */
        EventProblems: {
            /** Index */
            index: number;
            /** Problems */
            problems: string[];
        };
        /**
         * ForgetMemory
         * @description Soft-delete memory ``memory_id``: never returned by search, kept for history.
         */
        ForgetMemory: {
            /** Event Id */
            event_id?: string;
            /** Memory Id */
            memory_id: string;
            /**
             * Occurred At
             * Format: date-time
             */
            occurred_at?: string;
            /**
             * Schema Version
             * @default 1
             * @constant
             */
            schema_version?: 1;
            /**
             * Type
             * @default forget
             * @constant
             */
            type: "forget";
            /** User Id */
            user_id: string;
        };
        /**
         * Freshness
         * @description How fresh an answer is, for its user.
         */
        Freshness: {
            /** Pending Vectors */
            pending_vectors?: number | null;
            /** Pending Writes */
            pending_writes?: number | null;
            /** Position */
            position: string | null;
        };
        /**
         * MessageEvent
         * @description One turn of a conversation, published by a channel.
         *
         *     ``event_id`` is the client's idempotency key: publishing the same id twice for the
         *     same user stores one memory.
         */
        MessageEvent: {
            /**
             * Channel
             * @default api
             */
            channel?: string;
            /** Content */
            content: string;
            /** Event Id */
            event_id?: string;
            /** Metadata */
            metadata?: {
                [key: string]: unknown;
            };
            /**
             * Occurred At
             * Format: date-time
             */
            occurred_at?: string;
            /**
             * Project Id
             * @default null
             */
            project_id?: string | null;
            /**
             * Role
             * @enum {string}
             */
            role: "user" | "assistant" | "system" | "tool";
            /**
             * Schema Version
             * @default 1
             * @constant
             */
            schema_version?: 1;
            /** Session Id */
            session_id: string;
            /**
             * Speaker
             * @default null
             */
            speaker?: string | null;
            /** Tags */
            tags?: string[];
            /**
             * Type
             * @default message
             * @constant
             */
            type?: "message";
            /** User Id */
            user_id: string;
        };
        /** NewKey */
        NewKey: {
            /**
             * Name
             * @default
             */
            name?: string;
            /**
             * Role
             * @default write
             * @enum {string}
             */
            role?: "read" | "write" | "admin";
        };
        /** Owner */
        Owner: {
            /** User Id */
            user_id: string;
        };
        /**
         * PassageSpan
         * @description Where in a long turn the passage that matched the query is: passage ``index``,
         *     characters ``start`` to ``end`` of ``content``.
         */
        PassageSpan: {
            /** End */
            end: number;
            /** Index */
            index: number;
            /** Start */
            start: number;
        };
        /**
         * ReceiptProbe
         * @description One read path asked for the erased user after the erasure.
         */
        ReceiptProbe: {
            /** Asked */
            asked: number;
            /** Found */
            found: number;
            /** Read */
            read: string;
        };
        /**
         * ReceiptRemoved
         * @description What an erasure removed from each store.
         */
        ReceiptRemoved: {
            /** Caches */
            caches: string;
            /** Data Keys Destroyed */
            data_keys_destroyed: string[];
            /** Rows */
            rows: {
                [key: string]: number;
            };
            /** Sealed Copies */
            sealed_copies: string;
        };
        /**
         * ReceiptSignature
         * @description The deployment's signature of the rest of the receipt (canonical JSON).
         */
        ReceiptSignature: {
            /** Algorithm */
            algorithm: string;
            /** Key Id */
            key_id: string;
            /** Value */
            value: string;
        };
        /**
         * RememberFact
         * @description "Remember this": a memory stated by the user or an agent, taken as true.
         */
        RememberFact: {
            /**
             * Attribute
             * @default null
             */
            attribute?: string | null;
            /** Content */
            content: string;
            /** Event Id */
            event_id?: string;
            /**
             * Exclusive
             * @default false
             */
            exclusive?: boolean;
            /**
             * Importance
             * @default 0.7
             */
            importance?: number;
            /**
             * Kind
             * @default fact
             * @enum {string}
             */
            kind?: "fact" | "preference" | "procedure" | "opinion";
            /**
             * Occurred At
             * Format: date-time
             */
            occurred_at?: string;
            /**
             * Project Id
             * @default null
             */
            project_id?: string | null;
            /**
             * Schema Version
             * @default 1
             * @constant
             */
            schema_version?: 1;
            /**
             * Speaker
             * @default null
             */
            speaker?: string | null;
            /**
             * Subject
             * @default null
             */
            subject?: string | null;
            /** Tags */
            tags?: string[];
            /**
             * Type
             * @default remember_fact
             * @constant
             */
            type: "remember_fact";
            /** User Id */
            user_id: string;
            /**
             * Value
             * @default null
             */
            value?: string | null;
        };
        /**
         * RememberRequest
         * @description ``POST /v1/memories``: a memory stated by the user or an agent.
         */
        RememberRequest: {
            /** Attribute */
            attribute?: string | null;
            /** Content */
            content: string;
            /**
             * Exclusive
             * @default false
             */
            exclusive?: boolean;
            /**
             * Importance
             * @default 0.7
             */
            importance?: number;
            /**
             * Kind
             * @default fact
             * @enum {string}
             */
            kind?: "fact" | "preference" | "procedure" | "opinion";
            /** Project Id */
            project_id?: string | null;
            /** Speaker */
            speaker?: string | null;
            /** Subject */
            subject?: string | null;
            /** Tags */
            tags?: string[];
            /** User Id */
            user_id: string;
            /** Value */
            value?: string | null;
        };
        /**
         * SearchRequest
         * @description What a caller asks: validated before anything reads the store.
         */
        SearchRequest: {
            /** After */
            after?: string | null;
            /** After Write */
            after_write?: string | null;
            /** As Of */
            as_of?: string | null;
            /** Before */
            before?: string | null;
            /**
             * Include Archived
             * @default true
             */
            include_archived?: boolean;
            /**
             * Include History
             * @default false
             */
            include_history?: boolean;
            /**
             * K
             * @default 10
             */
            k?: number;
            /** Kinds */
            kinds?: string[] | null;
            /** Min Similarity */
            min_similarity?: number | null;
            /** Now */
            now?: string | null;
            /** Project Id */
            project_id?: string | null;
            /** Query */
            query: string;
            /** Tags */
            tags?: string[] | null;
            /** User Id */
            user_id: string;
            /**
             * Wait
             * @default applied
             * @enum {string}
             */
            wait?: "applied" | "vectors";
        };
        /** SearchResponse */
        SearchResponse: {
            as_of?: components["schemas"]["AsOf"] | null;
            freshness?: components["schemas"]["Freshness"] | null;
            /**
             * Intent
             * @enum {string}
             */
            intent: "why" | "when" | "who" | "what" | "general";
            /** Results */
            results: components["schemas"]["SearchResult"][];
            /** Took Ms */
            took_ms: number;
        };
        /** SearchResult */
        SearchResult: {
            /**
             * Archived
             * @default false
             */
            archived?: boolean;
            /** Confidence */
            confidence?: number | null;
            /** Content */
            content: string;
            document?: components["schemas"]["DocumentSource"] | null;
            /** Entities */
            entities: string[];
            /**
             * Forgotten
             * @default false
             */
            forgotten?: boolean;
            /** Found Through */
            found_through?: string | null;
            /** Kind */
            kind: string;
            /** Memory Id */
            memory_id: string;
            /** Occurred At */
            occurred_at: string | null;
            passage?: components["schemas"]["PassageSpan"] | null;
            /** Recorded At */
            recorded_at?: string | null;
            /** Score */
            score: number;
            /** Session Id */
            session_id: string | null;
            /** Similarity */
            similarity?: number | null;
            /** Source Event Ids */
            source_event_ids: string[];
            /** Speaker */
            speaker: string | null;
            /** Storage Ref */
            storage_ref?: string | null;
            /** Superseded By */
            superseded_by?: string | null;
        };
        /**
         * SessionEnded
         * @description A channel says a session is over: it closes at once, whatever the gap.
         *
         *     Published on ``memory.messages`` (keyed by user, so it follows the session's turns).
         */
        SessionEnded: {
            /** Event Id */
            event_id?: string;
            /**
             * Occurred At
             * Format: date-time
             */
            occurred_at?: string;
            /**
             * Project Id
             * @default null
             */
            project_id?: string | null;
            /**
             * Schema Version
             * @default 1
             * @constant
             */
            schema_version?: 1;
            /** Session Id */
            session_id: string;
            /**
             * Type
             * @default session_ended
             * @constant
             */
            type: "session_ended";
            /** User Id */
            user_id: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    healthz_healthz_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: string;
                    };
                };
            };
        };
    };
    readyz_readyz_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not ready, with the reasons */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    post_context_v1_context_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ContextRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The broker cannot take events now, or memstream is stopping (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    list_documents_v1_documents_get: {
        parameters: {
            query: {
                user_id: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    add_document_v1_documents_post: {
        parameters: {
            query?: {
                wait?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Document Id */
                    document_id: string;
                    /**
                     * Media Type
                     * @default text/plain
                     * @enum {string}
                     */
                    media_type?: "text/plain" | "text/markdown" | "text/html" | "application/pdf" | "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
                    /** Project Id */
                    project_id?: string | null;
                    /** Tags */
                    tags?: string[];
                    /** Text */
                    text: string;
                    /** Title */
                    title?: string | null;
                    /** User Id */
                    user_id: string;
                };
                "multipart/form-data": {
                    /** Document Id */
                    document_id?: string | null;
                    /** Format: binary */
                    file: string;
                    /** Project Id */
                    project_id?: string | null;
                    /** Tags */
                    tags?: string | null;
                    /** Title */
                    title?: string | null;
                    /** User Id */
                    user_id: string;
                };
            };
        };
        responses: {
            /** @description The same bytes were submitted before, or waited for */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body is larger than the server takes (MEMSTREAM_MAX_BODY_BYTES). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not a type memstream reads: the answer names those it does */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The broker cannot take events now, or memstream is stopping (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A disk memstream writes to is nearly full (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_document_v1_documents__document_id__get: {
        parameters: {
            query: {
                user_id: string;
                wait?: number;
            };
            header?: never;
            path: {
                document_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such memory or entity for this user. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    remove_document_v1_documents__document_id__delete: {
        parameters: {
            query: {
                user_id: string;
                wait?: number;
            };
            header?: never;
            path: {
                document_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed already */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such memory or entity for this user. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The broker cannot take events now, or memstream is stopping (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A disk memstream writes to is nearly full (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_entity_v1_entities_get: {
        parameters: {
            query: {
                /** @description a write token: answer once the projections hold that write (503 with Retry-After after a bounded wait) */
                after_write?: string | null;
                /** @description memory as it stood at a past moment: an ISO 8601 time (what was recorded by then) or a write token (once that write was applied) */
                as_of?: string | null;
                name: string;
                project_id?: string | null;
                user_id: string;
                /** @description with after_write: 'applied', or 'vectors' too */
                wait?: "applied" | "vectors";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such memory or entity for this user. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    post_events_v1_events_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": (components["schemas"]["MessageEvent"] | components["schemas"]["SessionEnded"] | components["schemas"]["RememberFact"] | components["schemas"]["CorrectFact"] | components["schemas"]["ConfirmFact"] | components["schemas"]["ForgetMemory"]) | (components["schemas"]["MessageEvent"] | components["schemas"]["SessionEnded"] | components["schemas"]["RememberFact"] | components["schemas"]["CorrectFact"] | components["schemas"]["ConfirmFact"] | components["schemas"]["ForgetMemory"])[];
            };
        };
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body is larger than the server takes (MEMSTREAM_MAX_BODY_BYTES). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The broker cannot take events now, or memstream is stopping (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A disk memstream writes to is nearly full (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_freshness_v1_freshness_get: {
        parameters: {
            query: {
                /** @description a write token: answer once the projections hold that write (503 with Retry-After after a bounded wait) */
                after_write?: string | null;
                user_id: string;
                /** @description with after_write: 'applied', or 'vectors' too */
                wait?: "applied" | "vectors";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The broker cannot take events now, or memstream is stopping (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    list_keys_v1_keys_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    create_key_v1_keys_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewKey"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    revoke_key_v1_keys__key_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such memory or entity for this user. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    list_memories_v1_memories_get: {
        parameters: {
            query: {
                /** @description memories that occurred at or after this time */
                after?: string | null;
                /** @description a write token: answer once the projections hold that write (503 with Retry-After after a bounded wait) */
                after_write?: string | null;
                /** @description memory as it stood at a past moment: an ISO 8601 time (what was recorded by then) or a write token (once that write was applied) */
                as_of?: string | null;
                /** @description memories that occurred before this time */
                before?: string | null;
                cursor?: string | null;
                /** @description superseded and forgotten too */
                include_hidden?: boolean;
                kind?: string | null;
                limit?: number;
                order?: "newest" | "oldest";
                project_id?: string | null;
                session_id?: string | null;
                tag?: string | null;
                user_id: string;
                /** @description with after_write: 'applied', or 'vectors' too */
                wait?: "applied" | "vectors";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    remember_v1_memories_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RememberRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The broker cannot take events now, or memstream is stopping (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A disk memstream writes to is nearly full (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_memory_v1_memories__memory_id__get: {
        parameters: {
            query: {
                /** @description a write token: answer once the projections hold that write (503 with Retry-After after a bounded wait) */
                after_write?: string | null;
                /** @description memory as it stood at a past moment: an ISO 8601 time (what was recorded by then) or a write token (once that write was applied) */
                as_of?: string | null;
                expand?: boolean;
                user_id: string;
                /** @description with after_write: 'applied', or 'vectors' too */
                wait?: "applied" | "vectors";
            };
            header?: never;
            path: {
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such memory or entity for this user. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description This server has no cold store. */
            501: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The broker cannot take events now, or memstream is stopping (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A disk memstream writes to is nearly full (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    confirm_v1_memories__memory_id__confirm_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Owner"];
            };
        };
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such memory or entity for this user. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The broker cannot take events now, or memstream is stopping (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A disk memstream writes to is nearly full (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    correct_v1_memories__memory_id__correct_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Correction"];
            };
        };
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such memory or entity for this user. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The broker cannot take events now, or memstream is stopping (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A disk memstream writes to is nearly full (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    explain_v1_memories__memory_id__explain_get: {
        parameters: {
            query: {
                /** @description a write token: answer once the projections hold that write (503 with Retry-After after a bounded wait) */
                after_write?: string | null;
                /** @description memory as it stood at a past moment: an ISO 8601 time (what was recorded by then) or a write token (once that write was applied) */
                as_of?: string | null;
                user_id: string;
                /** @description with after_write: 'applied', or 'vectors' too */
                wait?: "applied" | "vectors";
            };
            header?: never;
            path: {
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such memory or entity for this user. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    forget_v1_memories__memory_id__forget_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Owner"];
            };
        };
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such memory or entity for this user. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The broker cannot take events now, or memstream is stopping (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A disk memstream writes to is nearly full (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_history_v1_memories__memory_id__history_get: {
        parameters: {
            query: {
                /** @description a write token: answer once the projections hold that write (503 with Retry-After after a bounded wait) */
                after_write?: string | null;
                /** @description memory as it stood at a past moment: an ISO 8601 time (what was recorded by then) or a write token (once that write was applied) */
                as_of?: string | null;
                user_id: string;
                /** @description with after_write: 'applied', or 'vectors' too */
                wait?: "applied" | "vectors";
            };
            header?: never;
            path: {
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such memory or entity for this user. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    restore_v1_memories__memory_id__restore_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Owner"];
            };
        };
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such memory or entity for this user. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description This server has no cold store. */
            501: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The broker cannot take events now, or memstream is stopping (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A disk memstream writes to is nearly full (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    weak_memories_v1_memories_weak_get: {
        parameters: {
            query: {
                user_id: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The broker cannot take events now, or memstream is stopping (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    post_search_v1_search_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SearchRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchResponse"];
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The broker cannot take events now, or memstream is stopping (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    list_served_v1_served_get: {
        parameters: {
            query: {
                limit?: number;
                memory_id?: string | null;
                user_id: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_served_v1_served__served_id__get: {
        parameters: {
            query: {
                user_id: string;
            };
            header?: never;
            path: {
                served_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such memory or entity for this user. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_stats_v1_stats_get: {
        parameters: {
            query?: {
                user_id?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_users_v1_users_get: {
        parameters: {
            query?: {
                tenant?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    erase_user_v1_users__user_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErasureAnswer"];
                };
            };
            /** @description The keys are destroyed; the rows are still being dropped */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key is over its rate (see Retry-After). */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The broker cannot take events now, or memstream is stopping (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A disk memstream writes to is nearly full (see Retry-After); `accepted` lists the events of a publish taken before the refusal, if any. */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    export_user_v1_users__user_id__export_get: {
        parameters: {
            query?: {
                format?: "events" | "markdown" | "json";
            };
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The export, streamed: JSON lines (events), a JSON document (json) or Markdown (markdown) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                    "application/x-ndjson": unknown;
                    "text/markdown; charset=utf-8": unknown;
                };
            };
            /** @description Keys are required and the request carries none, or one unknown or revoked. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key cannot act on that user, is read-only, or is not an admin key. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such memory or entity for this user. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request is malformed: each problem is named. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
}
