-- How the ceo store keeps the three tables that grow with the customer base (docs/performance.md,
-- "The company database"). schema.sql is the contract the agent reads; this script runs after it
-- and replaces `customers`, `subscriptions` and `issues` by views of the same names, columns and
-- values over compact storage:
--
-- * customer_rows: one row per customer for both `customers` and `subscriptions` (a customer
--   has at most one subscription row, reference-notes §5.1); the nine persona picks are one
--   integer (personas.persona_codes) spelled out through persona_words by the inner view
--   customer_words, on which `customers` builds the persona sentence; enum texts are codes.
-- * issue_rows: one row per issue; status, resolution and days_open are derived (an open
--   issue's days_open counts to store_clock.day, the day the issues were last written).
--
-- Storage holds nothing hidden either: a group's row in group_names and its persona_words come
-- with its first customer (store.py), so the file says nothing of a group it has no customer
-- of. The agent reads the views; a query that names a storage table is refused (the query guard
-- allows reads of storage only from inside the file's visible views). Computed numbers are CAST
-- so that they keep the INTEGER affinity of the contract's columns.
-- Indexes: group_id (filters, GROUP BY, the per-group join) and issue_rows.customer_id (joins
-- with customers and subscriptions). Days need none: customer and issue ids grow with the day.

DROP TABLE customers;
DROP TABLE subscriptions;
DROP TABLE issues;

CREATE TABLE group_names (
    group_id TEXT PRIMARY KEY,
    customer_type TEXT
) WITHOUT ROWID;

CREATE TABLE persona_words (
    field INTEGER,                  -- index in personas.PICKED
    group_id TEXT,
    code INTEGER,
    word TEXT,
    PRIMARY KEY (field, group_id, code)
) WITHOUT ROWID;

CREATE TABLE status_names (code INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE source_names (code INTEGER PRIMARY KEY, name TEXT);

CREATE TABLE customer_rows (
    customer_id INTEGER PRIMARY KEY,
    group_id TEXT,
    created_day INTEGER,
    source INTEGER,                 -- source_names.code
    persona INTEGER,                -- field k's pick at bits 4k..4k+3
    email TEXT,
    status INTEGER,                 -- status_names.code; 0: a prospect, no subscription row
    plan TEXT,
    listed_price REAL,
    promotion REAL,
    effective_price REAL,
    start_day INTEGER,
    end_day INTEGER,
    billing_day_mod30 INTEGER,
    seat_count INTEGER,
    contract_months INTEGER,
    contract_end_day INTEGER,
    first_billing_done INTEGER
);
CREATE INDEX customer_rows_group ON customer_rows (group_id);

CREATE TABLE issue_rows (
    issue_id INTEGER PRIMARY KEY,
    customer_id INTEGER,
    group_id TEXT,
    open_day INTEGER,
    resolved_day INTEGER,           -- NULL while open
    churned INTEGER                 -- 1: closed because the customer left
);
CREATE INDEX issue_rows_customer ON issue_rows (customer_id);

CREATE TABLE store_clock (day INTEGER);
INSERT INTO store_clock VALUES (0);

-- The persona words of each customer row; `customers` adds the sentence made of them.
CREATE VIEW customer_words AS
SELECT
    c.customer_id,
    (SELECT customer_type FROM group_names AS g WHERE g.group_id = c.group_id) AS customer_type,
    c.group_id,
    c.created_day,
    (SELECT word FROM persona_words WHERE field = 0 AND group_id = c.group_id AND code = c.persona & 15)
        AS persona_industry,
    (SELECT word FROM persona_words WHERE field = 1 AND group_id = c.group_id AND code = c.persona >> 4 & 15)
        AS persona_role,
    (SELECT word FROM persona_words WHERE field = 2 AND group_id = c.group_id AND code = c.persona >> 8 & 15)
        AS persona_experience,
    (SELECT word FROM persona_words WHERE field = 3 AND group_id = c.group_id AND code = c.persona >> 12 & 15)
        AS persona_work_style,
    (SELECT word FROM persona_words WHERE field = 4 AND group_id = c.group_id AND code = c.persona >> 16 & 15)
        AS persona_tech_savvy,
    (SELECT word FROM persona_words WHERE field = 5 AND group_id = c.group_id AND code = c.persona >> 20 & 15)
        AS company_size_descriptor,
    (SELECT word FROM persona_words WHERE field = 6 AND group_id = c.group_id AND code = c.persona >> 24 & 15)
        AS company_culture,
    (SELECT word FROM persona_words WHERE field = 7 AND group_id = c.group_id AND code = c.persona >> 28 & 15)
        AS company_decision_style,
    (SELECT word FROM persona_words WHERE field = 8 AND group_id = c.group_id AND code = c.persona >> 32 & 15)
        AS company_primary_concern,
    c.email,
    c.start_day AS contract_start_day,
    (SELECT name FROM source_names AS s WHERE s.code = c.source) AS acquisition_source
FROM customer_rows AS c;

CREATE VIEW customers AS
SELECT
    customer_id,
    customer_type,
    group_id,
    created_day,
    persona_industry,
    persona_role,
    persona_experience,
    persona_work_style,
    persona_tech_savvy,
    company_size_descriptor,
    company_culture,
    company_decision_style,
    company_primary_concern,
    upper(substr(persona_role, 1, 1)) || substr(persona_role, 2) || CASE customer_type
        WHEN 'large' THEN ' at a ' || company_size_descriptor || ' ' || persona_industry || ' organisation with a '
            || company_culture || ' culture; ' || persona_experience || ', ' || persona_work_style
            || '; buying decisions: ' || company_decision_style || '; main concern: ' || company_primary_concern || '.'
        ELSE ' in ' || persona_industry || ' (' || company_size_descriptor || '), ' || persona_experience || ', '
            || persona_work_style || ', ' || persona_tech_savvy || ' technical skills; ' || company_decision_style
            || '; main concern: ' || company_primary_concern || '.'
    END AS persona_description,
    email,
    contract_start_day,
    acquisition_source
FROM customer_words;

CREATE VIEW subscriptions AS
SELECT
    CAST(c.customer_id + 1 AS INTEGER) AS subscription_id,  -- CAST: INTEGER affinity, as in the contract
    c.customer_id,
    c.plan,
    c.listed_price,
    c.promotion,
    c.effective_price,
    c.start_day,
    c.end_day,
    (SELECT name FROM status_names AS s WHERE s.code = c.status) AS status,
    c.billing_day_mod30,
    NULL AS pending_plan,
    NULL AS pending_price,
    c.seat_count,
    c.contract_months,
    c.contract_end_day,
    c.first_billing_done
FROM customer_rows AS c
WHERE c.status > 0;

CREATE VIEW issues AS
SELECT
    i.issue_id,
    i.customer_id,
    i.group_id,
    i.open_day,
    CAST(coalesce(i.resolved_day, (SELECT day FROM store_clock)) - i.open_day AS INTEGER) AS days_open,
    CASE WHEN i.resolved_day IS NULL THEN 'open' WHEN i.churned THEN 'closed' ELSE 'resolved' END AS status,
    i.resolved_day,
    CASE WHEN i.resolved_day IS NULL THEN NULL WHEN i.churned THEN 'customer_churned' ELSE 'ops_resolved' END
        AS resolution_type
FROM issue_rows AS i;
