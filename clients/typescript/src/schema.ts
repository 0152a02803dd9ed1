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
        get: operations["healthz"];
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
        get: operations["readyz"];
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
        post: operations["post_context"];
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
        get: operations["list_documents"];
        put?: never;
        /**
         * Add Document
         * @description Submit a document (a file, or text); its chunks become searchable memories.
         */
        post: operations["add_document"];
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
        get: operations["get_document"];
        put?: never;
        post?: never;
        /**
         * Remove Document
         * @description Remove a document: the chunks and facts of every version of it are
         *     soft-deleted (kept for history, never found again). Submitting it again starts
         *     it afresh; the original bytes go when the user is erased. ``?wait=N`` waits up
         *     to N seconds for the removal to be applied (200 then).
         */
        delete: operations["remove_document"];
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
        get: operations["get_entity"];
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
        post: operations["post_events"];
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
        get: operations["get_freshness"];
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
        get: operations["list_keys"];
        put?: never;
        /**
         * Create Key
         * @description A new key of the admin key's tenant; the key itself is in this answer only.
         */
        post: operations["create_key"];
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
        delete: operations["revoke_key"];
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
        get: operations["list_memories"];
        put?: never;
        /**
         * Remember
         * @description ``remember_fact``: store a memory stated by the user or an agent.
         */
        post: operations["remember"];
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
        get: operations["get_memory"];
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
        post: operations["confirm"];
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
        post: operations["correct"];
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
        get: operations["explain"];
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
        post: operations["forget"];
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
        get: operations["get_history"];
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
        post: operations["restore"];
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
        get: operations["weak_memories"];
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
        post: operations["post_search"];
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
        get: operations["list_served"];
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
        get: operations["get_served"];
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
        get: operations["get_stats"];
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
        get: operations["get_users"];
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
        delete: operations["erase_user"];
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
        get: operations["export_user"];
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
        /** AccessRow */
        AccessRow: {
            /** Access Count */
            access_count?: number | null;
            /** Access Id */
            access_id: string;
            /** Applied Epoch */
            applied_epoch?: string | null;
            /** Applied Offset */
            applied_offset?: number | null;
            /** Applied Partition */
            applied_partition?: number | null;
            /** Last Accessed */
            last_accessed?: string | null;
            /** Memory Id */
            memory_id: string;
            /** User Id */
            user_id: string;
        };
        /**
         * ApiKeyAnswer
         * @description An API key as listed: never the key itself, nor its hash.
         */
        ApiKeyAnswer: {
            /** Created At */
            created_at: string;
            /** Key Id */
            key_id: string;
            /** Name */
            name: string;
            /** Revoked At */
            revoked_at: string | null;
            /**
             * Role
             * @enum {string}
             */
            role: "read" | "write" | "admin";
            /** Tenant */
            tenant: string;
        };
        /**
         * ApiKeyList
         * @description ``GET /v1/keys``.
         */
        ApiKeyList: {
            /** Keys */
            keys: components["schemas"]["ApiKeyAnswer"][];
        };
        /**
         * AppliedOffset
         * @description Where the projections stand in one partition of one topic.
         */
        AppliedOffset: {
            /** Log Epoch */
            log_epoch: string;
            /** Offset */
            offset: number;
        };
        /**
         * ArchivedOriginal
         * @description An archived memory's original as the cold store keeps it: its ``memories`` row
         *     (every column of :data:`~memstream.storage.schemas.MEMORIES_SCHEMA`; an older
         *     archive may lack the newer ones) and its vector.
         */
        ArchivedOriginal: {
            /** Attribute */
            attribute?: string | null;
            /** Channel */
            channel?: string | null;
            /** Checksum */
            checksum?: string | null;
            /** Confidence */
            confidence?: number | null;
            /** Content */
            content: string;
            /** Entity Ids */
            entity_ids?: string[] | null;
            /** Importance */
            importance?: number | null;
            /** Ingested At */
            ingested_at?: string | null;
            /** Kind */
            kind: string | null;
            /** Log Epoch */
            log_epoch?: string | null;
            /** Log Offset */
            log_offset?: number | null;
            /** Log Partition */
            log_partition?: number | null;
            /** Log Topic */
            log_topic?: string | null;
            /** Memory Id */
            memory_id: string;
            /** Metadata */
            metadata?: string | null;
            /** Occurred At */
            occurred_at?: string | null;
            /** Project Id */
            project_id?: string | null;
            /** Role */
            role?: string | null;
            /** Search Text */
            search_text?: string | null;
            /** Session Id */
            session_id?: string | null;
            /** Slot */
            slot?: string | null;
            /** Source Event Ids */
            source_event_ids?: string[] | null;
            /** Source Memory Ids */
            source_memory_ids?: string[] | null;
            /** Speaker */
            speaker?: string | null;
            /** Subject */
            subject?: string | null;
            /** Tags */
            tags?: string[] | null;
            /** User Id */
            user_id: string;
            /** Valid Until */
            valid_until?: string | null;
            /** Value */
            value?: string | null;
            /** Vector */
            vector?: number[] | null;
            /** Vector Model */
            vector_model?: string | null;
            /** Vector Source Event Id */
            vector_source_event_id?: string | null;
        };
        /** ArchiveIndexRow */
        ArchiveIndexRow: {
            /** Archive Id */
            archive_id: string;
            /** Archived At */
            archived_at?: string | null;
            /** Confidence */
            confidence?: number | null;
            /** Entity Ids */
            entity_ids?: string[] | null;
            /** Expanded At */
            expanded_at?: string[] | null;
            /** Hotness */
            hotness?: number | null;
            /** Importance */
            importance?: number | null;
            /** Kind */
            kind?: string | null;
            /** Memory Id */
            memory_id: string;
            /** Occurred At */
            occurred_at?: string | null;
            /** Owner Claim */
            owner_claim?: string | null;
            /** Owner Epoch */
            owner_epoch?: number | null;
            /** Project Id */
            project_id?: string | null;
            /** Reason */
            reason?: string | null;
            /** Restored At */
            restored_at?: string | null;
            /** Search Text */
            search_text: string;
            /** Session Id */
            session_id?: string | null;
            /** Source Event Ids */
            source_event_ids?: string[] | null;
            /** Speaker */
            speaker?: string | null;
            /** Storage File */
            storage_file: string;
            /** Storage Version */
            storage_version?: string | null;
            /** Tags */
            tags?: string[] | null;
            /** User Id */
            user_id: string;
            /** Vector */
            vector?: string | null;
            /** Vector Model */
            vector_model?: string | null;
            /** Vector Scale */
            vector_scale?: number | null;
        };
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
         * BriefMemory
         * @description A memory in brief (what an explanation or a profile links to).
         */
        BriefMemory: {
            /** Content */
            content?: string | null;
            /** Entities */
            entities?: string[] | null;
            /** Importance */
            importance?: number | null;
            /** Kind */
            kind?: string | null;
            /** Memory Id */
            memory_id: string;
            /** Occurred At */
            occurred_at?: string | null;
            /** Session Id */
            session_id?: string | null;
            /** Speaker */
            speaker?: string | null;
            /** Tags */
            tags?: string[] | null;
        };
        /**
         * ConfidenceExplained
         * @description Where a memory's confidence started, where it is now, and the rule between.
         */
        ConfidenceExplained: {
            /** Access Count */
            access_count: number;
            /** Days Since Used */
            days_since_used: number;
            /** Last Accessed */
            last_accessed: string | null;
            /** Now */
            now: number | null;
            /** Rule */
            rule: string;
            /** Stored */
            stored: number | null;
            /** Written */
            written: number | null;
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
         * ContextAnswer
         * @description ``POST /v1/context``: the memory block to put before an agent's answer.
         */
        ContextAnswer: {
            as_of: components["schemas"]["AsOf"] | null;
            /** Budget Tokens */
            budget_tokens: number;
            /** Complexity */
            complexity: string;
            /** Context */
            context: string | null;
            freshness: components["schemas"]["Freshness"] | null;
            /** Left Out */
            left_out: components["schemas"]["ContextLeftOut"][];
            /** Sections */
            sections: components["schemas"]["ContextSection"][];
            /** Tokens */
            tokens: number;
            /** Took Ms */
            took_ms: number;
        };
        /**
         * ContextLeftOut
         * @description A candidate left out of the block, and why.
         */
        ContextLeftOut: {
            /** Memory Id */
            memory_id: string;
            /** Reason */
            reason: string;
            /** Section */
            section: string;
        };
        /**
         * ContextLineAnswer
         * @description One line of a context block, with the memory it quotes.
         */
        ContextLineAnswer: {
            /** Archived */
            archived: boolean;
            /** Kind */
            kind: string | null;
            /** Memory Id */
            memory_id: string;
            /** Occurred At */
            occurred_at: string | null;
            /** Source Event Ids */
            source_event_ids: string[];
            /** Text */
            text: string;
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
         * ContextSection
         * @description A section of a context block (facts, entities, temporal, evidence).
         */
        ContextSection: {
            /** Lines */
            lines: components["schemas"]["ContextLineAnswer"][];
            /** Name */
            name: string;
            /** Tokens */
            tokens: number;
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
         * CorrectionAccepted
         * @description ``POST /v1/memories/{memory_id}/correct``: the new memory that replaces one.
         */
        CorrectionAccepted: {
            /** Accepted */
            accepted: string[];
            /** Memory Id */
            memory_id: string;
            /** Supersedes */
            supersedes: string;
            /**
             * Token
             * @description the write token: a read given it as `after_write` sees this write (null: the broker gave no position)
             */
            token: string | null;
        };
        /**
         * DerivedFrom
         * @description The turns and memories a memory came from.
         */
        DerivedFrom: {
            /** Memories */
            memories: components["schemas"]["BriefMemory"][];
            /** Turns */
            turns: components["schemas"]["BriefMemory"][];
        };
        /**
         * DocumentError
         * @description Why a document could not be read.
         */
        DocumentError: {
            /** Class */
            class: string | null;
            /** Message */
            message: string | null;
        };
        /**
         * DocumentList
         * @description ``GET /v1/documents``: the user's documents, newest first.
         */
        DocumentList: {
            /** Documents */
            documents: components["schemas"]["DocumentStatus"][];
        };
        /**
         * DocumentRemoval
         * @description ``DELETE /v1/documents/{document_id}``: the removal accepted (202), applied
         *     (200 with ``?wait=``), or done before (200, ``removed`` true).
         */
        DocumentRemoval: {
            /** Accepted */
            accepted: string[];
            document?: components["schemas"]["DocumentStatus"] | null;
            /** Document Id */
            document_id: string;
            /** Removed */
            removed: boolean;
            /**
             * Token
             * @description the write token: a read given it as `after_write` sees this write (null: the broker gave no position)
             */
            token?: string | null;
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
        /** DocumentsRow */
        DocumentsRow: {
            /** Checksum */
            checksum: string;
            /** Chunks */
            chunks?: number | null;
            /** Document Id */
            document_id: string;
            /** Document Key */
            document_key: string;
            /** Error Class */
            error_class?: string | null;
            /** Error Message */
            error_message?: string | null;
            /** Fact Ids */
            fact_ids?: string[] | null;
            /** Facts Error */
            facts_error?: string | null;
            /** Media Type */
            media_type: string;
            /** Owner Claim */
            owner_claim?: string | null;
            /** Owner Epoch */
            owner_epoch?: number | null;
            /** Pages */
            pages?: number | null;
            /** Parts */
            parts?: number[] | null;
            /** Project Id */
            project_id?: string | null;
            /** Retired Ids */
            retired_ids?: string[] | null;
            /** Size */
            size: number;
            /** Status */
            status: string;
            /** Submitted At */
            submitted_at?: string | null;
            /** Submitted Event Id */
            submitted_event_id?: string | null;
            /** Tags */
            tags?: string[] | null;
            /** Title */
            title: string;
            /** Title Given */
            title_given?: boolean | null;
            /** Total */
            total?: number | null;
            /** Tries */
            tries?: number | null;
            /** Updated At */
            updated_at?: string | null;
            /** User Id */
            user_id: string;
            /** Versions */
            versions?: string[] | null;
        };
        /**
         * DocumentStatus
         * @description A document and how far the worker has read it: ``received`` (accepted, not read
         *     yet), ``chunked``, ``indexed``, ``empty``, ``failed`` (``error`` says why) or
         *     ``removed``.
         */
        DocumentStatus: {
            /** Checksum */
            checksum: string;
            /** Chunks */
            chunks: number | null;
            /** Document Id */
            document_id: string;
            /** Embedded Chunks */
            embedded_chunks?: number | null;
            error?: components["schemas"]["DocumentError"] | null;
            /** Facts */
            facts?: number | null;
            /** Facts Error */
            facts_error?: string | null;
            /** Media Type */
            media_type?: string | null;
            /** Pages */
            pages?: number | null;
            /** Project Id */
            project_id?: string | null;
            /** Size */
            size?: number | null;
            /** Status */
            status: string;
            /** Submitted At */
            submitted_at?: string | null;
            /** Tags */
            tags?: string[] | null;
            /** Title */
            title?: string | null;
            /** Total Chunks */
            total_chunks: number | null;
            /** Tries */
            tries?: number | null;
            /** Updated At */
            updated_at?: string | null;
            /** User Id */
            user_id: string;
            /** Version */
            version?: number | null;
        };
        /**
         * DocumentSubmitted
         * @description ``POST /v1/documents``: a document taken (202), or the same bytes again (200).
         */
        DocumentSubmitted: {
            /** Accepted */
            accepted: string[];
            /** Checksum */
            checksum: string;
            document?: components["schemas"]["DocumentStatus"] | null;
            /** Document Id */
            document_id: string;
            /** New */
            new: boolean;
            /**
             * Token
             * @description the write token: a read given it as `after_write` sees this write (null: the broker gave no position)
             */
            token: string | null;
        };
        /** EntitiesRow */
        EntitiesRow: {
            /** Aliases */
            aliases?: string[] | null;
            /** Applied Epoch */
            applied_epoch?: string | null;
            /** Applied Offset */
            applied_offset?: number | null;
            /** Applied Partition */
            applied_partition?: number | null;
            /** Canonical Name */
            canonical_name: string;
            /** Entity Id */
            entity_id: string;
            /** First Seen */
            first_seen?: string | null;
            /** Key */
            key: string;
            /** Last Seen */
            last_seen?: string | null;
            /** Mention Count */
            mention_count?: number | null;
            /** Type */
            type: string;
            /** User Id */
            user_id: string;
        };
        /**
         * EntityProfile
         * @description ``GET /v1/entities``: an entity, its memories (the newest 20) and a monthly
         *     timeline.
         */
        EntityProfile: {
            /** Aliases */
            aliases: string[];
            as_of?: components["schemas"]["AsOf"] | null;
            /** Entity Id */
            entity_id: string;
            /** First Seen */
            first_seen: string | null;
            /** Last Seen */
            last_seen: string | null;
            /** Memories */
            memories: components["schemas"]["BriefMemory"][];
            /** Memory Count */
            memory_count: number;
            /** Mention Count */
            mention_count: number;
            /** Name */
            name: string;
            /** Timeline */
            timeline: components["schemas"]["MonthCount"][];
            /** Type */
            type: string;
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
         * EventsAccepted
         * @description ``POST /v1/events``: the events taken, durably, for the worker to apply.
         */
        EventsAccepted: {
            /** Accepted */
            accepted: string[];
            /**
             * Token
             * @description the write token: a read given it as `after_write` sees this write (null: the broker gave no position)
             */
            token: string | null;
        };
        /**
         * ExpandedMemory
         * @description ``GET /v1/memories/{memory_id}?expand=true``: an archived memory's original.
         */
        ExpandedMemory: {
            /** Archived */
            archived: boolean;
            /** Memory Id */
            memory_id: string;
            original: components["schemas"]["ArchivedOriginal"];
            /** Restoring */
            restoring: boolean;
        };
        /**
         * Explanation
         * @description ``GET /v1/memories/{memory_id}/explain``: why a memory exists and stands where
         *     it does.
         */
        Explanation: {
            as_of?: components["schemas"]["AsOf"] | null;
            commands: components["schemas"]["ExplanationCommands"];
            confidence: components["schemas"]["ConfidenceExplained"];
            derived_from: components["schemas"]["DerivedFrom"];
            /** Entities */
            entities: string[];
            /** History */
            history: components["schemas"]["ExplanationStep"][];
            memory: components["schemas"]["BriefMemory"];
        };
        /**
         * ExplanationCommands
         * @description What commands did to the memory.
         */
        ExplanationCommands: {
            /** Confirmed */
            confirmed: boolean;
            /** Corrects */
            corrects: string[];
            /** Forgotten At */
            forgotten_at: string | null;
            /** Forgotten Reason */
            forgotten_reason: string | null;
            /** Superseded By */
            superseded_by: string | null;
        };
        /**
         * ExplanationStep
         * @description One memory of the chain of replacements.
         */
        ExplanationStep: {
            /** Content */
            content: string | null;
            /** Kind */
            kind: string | null;
            /** Memory Id */
            memory_id: string;
            /** Occurred At */
            occurred_at: string | null;
            /** Superseded By */
            superseded_by: string | null;
            /** Valid Until */
            valid_until: string | null;
        };
        /** ExportedTables */
        ExportedTables: {
            /** Access */
            access: components["schemas"]["AccessRow"][];
            /** Archive Index */
            archive_index: components["schemas"]["ArchiveIndexRow"][];
            /** Documents */
            documents: components["schemas"]["DocumentsRow"][];
            /** Entities */
            entities: components["schemas"]["EntitiesRow"][];
            /** Memories */
            memories: components["schemas"]["MemoriesRow"][];
            /** Memory State */
            memory_state: components["schemas"]["MemoryStateRow"][];
            /** Served */
            served: components["schemas"]["ServedRow"][];
            /** Sessions */
            sessions: components["schemas"]["SessionsRow"][];
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
         * FreshnessAnswer
         * @description ``GET /v1/freshness``: how fresh reads of the user are.
         */
        FreshnessAnswer: {
            /** Pending Vectors */
            pending_vectors?: number | null;
            /** Pending Writes */
            pending_writes?: number | null;
            /** Position */
            position: string | null;
            /** User Id */
            user_id: string;
            /** Waited Ms */
            waited_ms?: number | null;
        };
        /**
         * ListedMemory
         * @description A memory as a list shows it (an archived one: its summary as content).
         */
        ListedMemory: {
            /** Archived */
            archived: boolean;
            /** Channel */
            channel?: string | null;
            /** Confidence */
            confidence?: number | null;
            /** Content */
            content: string;
            /** Importance */
            importance?: number | null;
            /** Kind */
            kind: string;
            /** Memory Id */
            memory_id: string;
            /** Metadata */
            metadata?: string | null;
            /** Occurred At */
            occurred_at?: string | null;
            /** Project Id */
            project_id?: string | null;
            /** Role */
            role?: string | null;
            /** Session Id */
            session_id?: string | null;
            /** Speaker */
            speaker?: string | null;
            /** State */
            state: string;
            /** Tags */
            tags?: string[] | null;
        };
        /**
         * Liveness
         * @description ``GET /healthz``.
         */
        Liveness: {
            /** Instance */
            instance?: string | null;
            /**
             * Status
             * @constant
             */
            status: "ok";
        };
        /** MemoriesRow */
        MemoriesRow: {
            /** Attribute */
            attribute?: string | null;
            /** Channel */
            channel?: string | null;
            /** Confidence */
            confidence?: number | null;
            /** Content */
            content: string;
            /** Entity Ids */
            entity_ids?: string[] | null;
            /** Importance */
            importance?: number | null;
            /** Ingested At */
            ingested_at?: string | null;
            /** Kind */
            kind: string;
            /** Log Epoch */
            log_epoch?: string | null;
            /** Log Offset */
            log_offset?: number | null;
            /** Log Partition */
            log_partition?: number | null;
            /** Log Topic */
            log_topic?: string | null;
            /** Memory Id */
            memory_id: string;
            /** Metadata */
            metadata?: string | null;
            /** Occurred At */
            occurred_at?: string | null;
            /** Project Id */
            project_id?: string | null;
            /** Role */
            role?: string | null;
            /** Search Text */
            search_text: string;
            /** Session Id */
            session_id?: string | null;
            /** Slot */
            slot?: string | null;
            /** Source Event Ids */
            source_event_ids?: string[] | null;
            /** Source Memory Ids */
            source_memory_ids?: string[] | null;
            /** Speaker */
            speaker?: string | null;
            /** Subject */
            subject?: string | null;
            /** Tags */
            tags?: string[] | null;
            /** User Id */
            user_id: string;
            /** Valid Until */
            valid_until?: string | null;
            /** Value */
            value?: string | null;
        };
        /**
         * MemoryCommandAccepted
         * @description A command on one memory accepted (remember, confirm, forget, restore).
         */
        MemoryCommandAccepted: {
            /** Accepted */
            accepted: string[];
            /** Memory Id */
            memory_id: string;
            /**
             * Token
             * @description the write token: a read given it as `after_write` sees this write (null: the broker gave no position)
             */
            token: string | null;
        };
        /**
         * MemoryDocument
         * @description ``GET /v1/memories/{memory_id}``: a memory as stored, with what happened to it
         *     since (an archived one: its index row, its summary as content, where its original
         *     is). ``confidence`` is the confidence as it stands now.
         */
        MemoryDocument: {
            /** Access Count */
            access_count?: number | null;
            /** Archived */
            archived?: boolean | null;
            /** Archived At */
            archived_at?: string | null;
            as_of?: components["schemas"]["AsOf"] | null;
            /** Attribute */
            attribute?: string | null;
            /** Channel */
            channel?: string | null;
            /** Confidence */
            confidence?: number | null;
            /** Content */
            content: string;
            /** Entities */
            entities?: string[] | null;
            /** Entity Ids */
            entity_ids?: string[] | null;
            /** Expanded At */
            expanded_at?: string[] | null;
            /** Forgotten At */
            forgotten_at?: string | null;
            /** Forgotten Reason */
            forgotten_reason?: string | null;
            /** Hotness */
            hotness?: number | null;
            /** Importance */
            importance?: number | null;
            /** Ingested At */
            ingested_at?: string | null;
            /** Kind */
            kind: string | null;
            /** Last Accessed */
            last_accessed?: string | null;
            /** Memory Id */
            memory_id: string;
            /** Metadata */
            metadata?: string | null;
            /** Occurred At */
            occurred_at?: string | null;
            /** Project Id */
            project_id?: string | null;
            /** Protected */
            protected?: boolean | null;
            /** Reason */
            reason?: string | null;
            /** Restored At */
            restored_at?: string | null;
            /** Role */
            role?: string | null;
            /** Session Id */
            session_id?: string | null;
            /** Slot */
            slot?: string | null;
            /** Source Event Ids */
            source_event_ids?: string[] | null;
            /** Source Memory Ids */
            source_memory_ids?: string[] | null;
            /** Speaker */
            speaker?: string | null;
            /** Storage Ref */
            storage_ref?: string | null;
            /** Subject */
            subject?: string | null;
            /** Superseded At */
            superseded_at?: string | null;
            /** Superseded By */
            superseded_by?: string | null;
            /** Supersedes */
            supersedes?: string[] | null;
            /** Tags */
            tags?: string[] | null;
            /** User Id */
            user_id: string;
            /** Valid Until */
            valid_until?: string | null;
            /** Value */
            value?: string | null;
            /** Written Confidence */
            written_confidence?: number | null;
        };
        /**
         * MemoryHistory
         * @description ``GET /v1/memories/{memory_id}/history``: the memories that replaced one another
         *     through this one, oldest first.
         */
        MemoryHistory: {
            /** History */
            history: components["schemas"]["MemoryDocument"][];
            /** Memory Id */
            memory_id: string;
        };
        /**
         * MemoryPage
         * @description ``GET /v1/memories``: a page of the user's memories.
         */
        MemoryPage: {
            as_of: components["schemas"]["AsOf"] | null;
            freshness: components["schemas"]["Freshness"] | null;
            /** Memories */
            memories: components["schemas"]["ListedMemory"][];
            /** Next Cursor */
            next_cursor: string | null;
        };
        /** MemoryStateRow */
        MemoryStateRow: {
            /** Confidence */
            confidence?: number | null;
            /** Confidence As Of */
            confidence_as_of?: string | null;
            /** Forgotten At */
            forgotten_at?: string | null;
            /** Forgotten Reason */
            forgotten_reason?: string | null;
            /** Links */
            links?: components["schemas"]["MemoryStateRowLinksItem"][] | null;
            /** Memory Id */
            memory_id: string;
            /** Owner Claim */
            owner_claim?: string | null;
            /** Owner Epoch */
            owner_epoch?: number | null;
            /** Protected At */
            protected_at?: string | null;
            /** State Id */
            state_id: string;
            /** Superseded By */
            superseded_by?: string | null;
            /** User Id */
            user_id: string;
            /** Valid Until */
            valid_until?: string | null;
        };
        /** MemoryStateRowLinksItem */
        MemoryStateRowLinksItem: {
            /** Linked Id */
            linked_id: string;
            /** Relation */
            relation: string;
            /** Strength */
            strength: number;
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
        /**
         * MonthCount
         * @description How many of an entity's memories happened in one month.
         */
        MonthCount: {
            /** Memories */
            memories: number;
            /** Month */
            month: string;
        };
        /**
         * NewApiKey
         * @description ``POST /v1/keys``: the new key, shown in this answer only.
         */
        NewApiKey: {
            /** Created At */
            created_at: string;
            /** Key */
            key: string;
            /** Key Id */
            key_id: string;
            /** Name */
            name: string;
            /** Revoked At */
            revoked_at: string | null;
            /**
             * Role
             * @enum {string}
             */
            role: "read" | "write" | "admin";
            /** Tenant */
            tenant: string;
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
         * Readiness
         * @description ``GET /readyz``: 200 ready, 503 not, with each reason by what failed.
         */
        Readiness: {
            /** Reasons */
            reasons?: {
                [key: string]: string;
            } | null;
            /**
             * Status
             * @enum {string}
             */
            status: "ready" | "not ready";
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
            /** Role */
            role?: ("user" | "assistant" | "system" | "tool") | null;
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
         * ServedAnswer
         * @description ``GET /v1/served/{served_id}``: one answer as recorded, and rendered again.
         */
        ServedAnswer: {
            /** Agent */
            agent: string | null;
            /** Answer */
            answer: string;
            /** As Of */
            as_of: string | null;
            /** Asked As Of */
            asked_as_of: string | null;
            /** Budget Tokens */
            budget_tokens: number | null;
            /** Digest */
            digest: string;
            /** Door */
            door: string;
            /** Key Id */
            key_id: string | null;
            /** Lines */
            lines: components["schemas"]["ServedLine"][];
            /** Project Id */
            project_id: string | null;
            /** Question */
            question: string;
            rebuilt: components["schemas"]["ServedRebuilt"];
            /**
             * Served At
             * Format: date-time
             */
            served_at: string;
            /** Served Id */
            served_id: string;
            /** Session Id */
            session_id: string | null;
            /** Tenant */
            tenant: string | null;
            /** User Id */
            user_id: string;
        };
        /**
         * ServedLine
         * @description One line of a served answer, as ids and shapes, never its text: enough to render
         *     the line again from the memory it quotes (:mod:`memstream.queries.served`).
         *
         *     A memory's line quotes it whole (``readable`` says whether as a stored item's
         *     readable text), or the window ``cut`` of a long turn, after its speaker's name when
         *     ``speaker``. An entity profile's line names the entity as the names whose hashes
         *     ``names`` holds (the name first, then the aliases shown), with the counts and the
         *     facts (``facts``) it stated then.
         */
        ServedLine: {
            /**
             * Archived
             * @default false
             */
            archived?: boolean;
            /** Cut */
            cut?: [
                number,
                number
            ] | null;
            /** Entity Type */
            entity_type?: string | null;
            /** Facts */
            facts?: string[];
            /** First Seen */
            first_seen?: string | null;
            /** Kind */
            kind?: string | null;
            /** Last Seen */
            last_seen?: string | null;
            /** Memory Id */
            memory_id: string;
            /** Mentions */
            mentions?: number | null;
            /** Names */
            names?: string[];
            /**
             * Readable
             * @default false
             */
            readable?: boolean;
            /** Score */
            score?: number | null;
            /**
             * Section
             * @enum {string}
             */
            section: "facts" | "entities" | "temporal" | "evidence" | "results";
            /**
             * Speaker
             * @default false
             */
            speaker?: boolean;
        };
        /**
         * ServedList
         * @description ``GET /v1/served``: newest first.
         */
        ServedList: {
            /** Served */
            served: components["schemas"]["ServedRecord"][];
        };
        /**
         * ServedRebuilt
         * @description A served answer rendered again over memory as it stood when it was read.
         */
        ServedRebuilt: {
            /** Digest */
            digest: string;
            /** Matches */
            matches: boolean;
            /** Missing */
            missing: string[];
            /** Read As Of */
            read_as_of: string | null;
            /** Text */
            text: string | null;
        };
        /**
         * ServedRecord
         * @description An answer a caller was given of the user's memory: who asked, the question,
         *     where memory stood, and the lines as ids.
         */
        ServedRecord: {
            /** Agent */
            agent: string | null;
            /** Answer */
            answer: string;
            /** As Of */
            as_of: string | null;
            /** Asked As Of */
            asked_as_of: string | null;
            /** Budget Tokens */
            budget_tokens: number | null;
            /** Digest */
            digest: string;
            /** Door */
            door: string;
            /** Key Id */
            key_id: string | null;
            /** Lines */
            lines: components["schemas"]["ServedLine"][];
            /** Project Id */
            project_id: string | null;
            /** Question */
            question: string;
            /**
             * Served At
             * Format: date-time
             */
            served_at: string;
            /** Served Id */
            served_id: string;
            /** Session Id */
            session_id: string | null;
            /** Tenant */
            tenant: string | null;
            /** User Id */
            user_id: string;
        };
        /** ServedRow */
        ServedRow: {
            /** Agent */
            agent?: string | null;
            /** Answer */
            answer: string;
            /** As Of */
            as_of?: string | null;
            /** Asked As Of */
            asked_as_of?: string | null;
            /** Budget Tokens */
            budget_tokens?: number | null;
            /** Digest */
            digest: string;
            /** Door */
            door: string;
            /** Key Id */
            key_id?: string | null;
            /** Lines */
            lines: string;
            /** Memory Ids */
            memory_ids: string[];
            /** Project Id */
            project_id?: string | null;
            /** Question */
            question: string;
            /**
             * Served At
             * Format: date-time
             */
            served_at: string;
            /** Served Id */
            served_id: string;
            /** Session Id */
            session_id?: string | null;
            /** Tenant */
            tenant?: string | null;
            /** User Id */
            user_id: string;
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
        /** SessionsRow */
        SessionsRow: {
            /** Closed Reason */
            closed_reason?: string | null;
            /** Closed Through */
            closed_through?: string | null;
            /** Consolidated Through */
            consolidated_through?: string | null;
            /** Ended At */
            ended_at?: string | null;
            /** Extractor */
            extractor?: string | null;
            /** First At */
            first_at?: string | null;
            /** Last At */
            last_at?: string | null;
            /** Log Partition */
            log_partition?: number | null;
            /** Log Received At */
            log_received_at?: string | null;
            /** Owner Claim */
            owner_claim?: string | null;
            /** Owner Epoch */
            owner_epoch?: number | null;
            /** Project Id */
            project_id?: string | null;
            /** Session Id */
            session_id: string;
            /** Session Key */
            session_key: string;
            /** User Id */
            user_id: string;
        };
        /**
         * Stats
         * @description ``GET /v1/stats``: of one user, or (no ``user_id``) of the deployment.
         */
        Stats: {
            /** Applied Offsets */
            applied_offsets?: {
                [key: string]: components["schemas"]["AppliedOffset"];
            } | null;
            /** Archived */
            archived: number;
            /** Dead Letters */
            dead_letters: number;
            /** Embedding Lag */
            embedding_lag: number;
            /** Entities */
            entities: number;
            /** Hidden */
            hidden: number;
            /** Lag */
            lag?: number | null;
            /** Log Epoch */
            log_epoch?: string | null;
            /** Memories */
            memories: {
                [key: string]: number;
            };
            /** Position */
            position?: string | null;
            /** User Id */
            user_id: string | null;
        };
        /**
         * UserExport
         * @description A user's ``json`` export: who, when, and the user's rows of each table.
         */
        UserExport: {
            /**
             * Exported At
             * Format: date-time
             */
            exported_at: string;
            /** Format */
            format: string;
            /** Memstream Export */
            memstream_export: number;
            tables: components["schemas"]["ExportedTables"];
            /** User Id */
            user_id: string;
        };
        /**
         * UserHeld
         * @description A user memstream holds memories of.
         */
        UserHeld: {
            /** Archived */
            archived: number;
            /** Last At */
            last_at: string | null;
            /** Memories */
            memories: number;
            /** User Id */
            user_id: string;
        };
        /**
         * UserList
         * @description ``GET /v1/users``.
         */
        UserList: {
            /** Users */
            users: components["schemas"]["UserHeld"][];
        };
        /**
         * WeakMemories
         * @description ``GET /v1/memories/weak``: weakest first.
         */
        WeakMemories: {
            /** Memories */
            memories: components["schemas"]["WeakMemory"][];
        };
        /**
         * WeakMemory
         * @description A memory near the prune threshold.
         */
        WeakMemory: {
            /** Confidence */
            confidence: number;
            /** Kind */
            kind: string;
            /** Memory Id */
            memory_id: string;
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
    healthz: {
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
                    "application/json": components["schemas"]["Liveness"];
                };
            };
        };
    };
    readyz: {
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
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            /** @description Not ready, with the reasons */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
        };
    };
    post_context: {
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
                    "application/json": components["schemas"]["ContextAnswer"];
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
            /** @description No such memory or entity for this user, or (`as_of`) memory as of that moment is no longer kept. */
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
        };
    };
    list_documents: {
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
                    "application/json": components["schemas"]["DocumentList"];
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
    add_document: {
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
                    "application/json": components["schemas"]["DocumentSubmitted"];
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
    get_document: {
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
                    "application/json": components["schemas"]["DocumentStatus"];
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
            /** @description No such memory or entity for this user, or (`as_of`) memory as of that moment is no longer kept. */
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
    remove_document: {
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
                    "application/json": components["schemas"]["DocumentRemoval"];
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
            /** @description No such memory or entity for this user, or (`as_of`) memory as of that moment is no longer kept. */
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
    get_entity: {
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
                    "application/json": components["schemas"]["EntityProfile"];
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
            /** @description No such memory or entity for this user, or (`as_of`) memory as of that moment is no longer kept. */
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
    post_events: {
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
                    "application/json": components["schemas"]["EventsAccepted"];
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
    get_freshness: {
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
                    "application/json": components["schemas"]["FreshnessAnswer"];
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
    list_keys: {
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
                    "application/json": components["schemas"]["ApiKeyList"];
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
    create_key: {
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
                    "application/json": components["schemas"]["NewApiKey"];
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
    revoke_key: {
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
                    "application/json": components["schemas"]["ApiKeyAnswer"];
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
            /** @description No such memory or entity for this user, or (`as_of`) memory as of that moment is no longer kept. */
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
    list_memories: {
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
                    "application/json": components["schemas"]["MemoryPage"];
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
            /** @description No such memory or entity for this user, or (`as_of`) memory as of that moment is no longer kept. */
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
    remember: {
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
                    "application/json": components["schemas"]["MemoryCommandAccepted"];
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
    get_memory: {
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
                    "application/json": components["schemas"]["MemoryDocument"] | components["schemas"]["ExpandedMemory"];
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
            /** @description No such memory or entity for this user, or (`as_of`) memory as of that moment is no longer kept. */
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
    confirm: {
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
                    "application/json": components["schemas"]["MemoryCommandAccepted"];
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
            /** @description No such memory or entity for this user, or (`as_of`) memory as of that moment is no longer kept. */
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
    correct: {
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
                    "application/json": components["schemas"]["CorrectionAccepted"];
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
            /** @description No such memory or entity for this user, or (`as_of`) memory as of that moment is no longer kept. */
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
    explain: {
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
                    "application/json": components["schemas"]["Explanation"];
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
            /** @description No such memory or entity for this user, or (`as_of`) memory as of that moment is no longer kept. */
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
    forget: {
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
                    "application/json": components["schemas"]["MemoryCommandAccepted"];
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
            /** @description No such memory or entity for this user, or (`as_of`) memory as of that moment is no longer kept. */
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
    get_history: {
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
                    "application/json": components["schemas"]["MemoryHistory"];
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
            /** @description No such memory or entity for this user, or (`as_of`) memory as of that moment is no longer kept. */
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
    restore: {
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
                    "application/json": components["schemas"]["MemoryCommandAccepted"];
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
            /** @description No such memory or entity for this user, or (`as_of`) memory as of that moment is no longer kept. */
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
    weak_memories: {
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
                    "application/json": components["schemas"]["WeakMemories"];
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
    post_search: {
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
            /** @description No such memory or entity for this user, or (`as_of`) memory as of that moment is no longer kept. */
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
        };
    };
    list_served: {
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
                    "application/json": components["schemas"]["ServedList"];
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
    get_served: {
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
                    "application/json": components["schemas"]["ServedAnswer"];
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
            /** @description No such memory or entity for this user, or (`as_of`) memory as of that moment is no longer kept. */
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
    get_stats: {
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
                    "application/json": components["schemas"]["Stats"];
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
    get_users: {
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
                    "application/json": components["schemas"]["UserList"];
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
    erase_user: {
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
    export_user: {
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
                    "application/json": components["schemas"]["UserExport"];
                    "application/x-ndjson": string;
                    "text/markdown; charset=utf-8": string;
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
            /** @description No such memory or entity for this user, or (`as_of`) memory as of that moment is no longer kept. */
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
