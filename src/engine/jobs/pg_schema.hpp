// SPDX-License-Identifier: MIT OR Apache-2.0
// The PostgreSQL job store's schema and its versioned migrations.
//
// The daemon owns the schema: at start it brings the database to the newest version this build
// knows, in one transaction per version, each recorded as a row of schema_version. Several daemons
// starting at once against one database serialize on an advisory lock held for the migration's
// transaction, so each version is applied once. A database at a version newer than this build's
// (a newer daemon migrated it) is refused with nothing changed: this build cannot know what the
// newer columns mean.
//
// Migrations are only ever appended, never edited: a database in the field holds the versions it
// applied, and the next version starts from exactly those.
//
// Thread safety: none; called once, by the store's open().
#pragma once

#include "base/result.hpp"
#include "engine/jobs/pg_connection.hpp"

namespace cuzk::engine {

// The newest schema version this build creates.
int pg_schema_latest_version() noexcept;

// Applies every migration after the database's version, up to `target` (the newest by default;
// tests pass an older one to build a database as an older daemon left it). format_error, with
// nothing changed, for a database at a version newer than `target`.
status pg_migrate(pg_connection& c, int target = pg_schema_latest_version());

// The version the database is at (0: none of ours).
result<int> pg_schema_version(pg_connection& c);

}  // namespace cuzk::engine
