-- Agent-visible database of the ceo env (docs/reference-notes.md, ceo §5.1).
--
-- Exactly the 19 agent-visible tables with their visible columns and SQLite types.
-- Hidden state (§5.1 "stripped columns", §5.2 hidden tables) is never written here: the
-- file holds nothing the agent may not read, so no query can leak it.
-- Indexes serve the typical agent queries: filters and GROUP BY on day columns, joins on
-- customer_id, status filters.

CREATE TABLE customers (
    customer_id INTEGER PRIMARY KEY,
    customer_type TEXT,             -- 'small' (individual group) | 'large' (enterprise group)
    group_id TEXT,
    created_day INTEGER,
    persona_industry TEXT,
    persona_role TEXT,
    persona_experience TEXT,
    persona_work_style TEXT,
    persona_tech_savvy TEXT,
    company_size_descriptor TEXT,
    company_culture TEXT,
    company_decision_style TEXT,
    company_primary_concern TEXT,
    persona_description TEXT,
    email TEXT,                     -- enterprise customers only
    contract_start_day INTEGER,
    acquisition_source TEXT         -- a channel id, 'network' or 'organic'
);
CREATE INDEX customers_group ON customers (group_id);
CREATE INDEX customers_created_day ON customers (created_day);

CREATE TABLE subscriptions (
    subscription_id INTEGER PRIMARY KEY,
    customer_id INTEGER,
    plan TEXT,                      -- 'A' | 'B' | 'C' | 'pending' (enterprise lead)
    listed_price REAL,
    promotion REAL,
    effective_price REAL,
    start_day INTEGER,
    end_day INTEGER,
    status TEXT,                    -- 'lead' | 'subscribed' | 'cancelled' | 'lost'
    billing_day_mod30 INTEGER,
    pending_plan TEXT,
    pending_price REAL,
    seat_count INTEGER,
    contract_months INTEGER,
    contract_end_day INTEGER,
    first_billing_done INTEGER
);
CREATE UNIQUE INDEX subscriptions_customer ON subscriptions (customer_id);
CREATE INDEX subscriptions_status ON subscriptions (status);

-- Per customer and day; a rolling window of the last 30 days.
CREATE TABLE daily_usage (
    day INTEGER,
    customer_id INTEGER,
    usage_units INTEGER,
    PRIMARY KEY (day, customer_id)
) WITHOUT ROWID;

CREATE TABLE ledger (
    id INTEGER PRIMARY KEY,
    day INTEGER,
    category TEXT,
    amount REAL,
    note TEXT
);
CREATE INDEX ledger_day ON ledger (day);
CREATE INDEX ledger_category ON ledger (category);

CREATE TABLE service_day (
    day INTEGER PRIMARY KEY,
    total_usage_units INTEGER,
    p95_ms REAL,
    error_rate REAL,
    downtime_minutes INTEGER,
    capacity_tier INTEGER,
    capacity_units INTEGER
);

-- One row per day on which a price, tier, quota, spend or capacity setting changed.
-- The engine writes 0 into spend_advertising and the ad_spend_<channel> columns (legacy
-- columns, reference-notes §5.1); bizbench fills them with the total $/day on each channel (summed
-- over groups) and their sum, so the agent's ad budget history is queryable.
CREATE TABLE config_history (
    day INTEGER PRIMARY KEY,
    price_A REAL,
    price_B REAL,
    price_C REAL,
    tier_A INTEGER,
    tier_B INTEGER,
    tier_C INTEGER,
    spend_advertising REAL,
    spend_operations REAL,
    spend_development REAL,
    capacity_tier INTEGER,
    ad_spend_social_media REAL,
    ad_spend_search_ads REAL,
    ad_spend_linkedin REAL,
    ad_spend_content_marketing REAL,
    ad_spend_referral_program REAL,
    quota_A INTEGER,
    quota_B INTEGER,
    quota_C INTEGER
);

CREATE TABLE social_media_posts (
    post_id INTEGER PRIMARY KEY,
    day INTEGER,
    content TEXT,
    reply_to_agent_post_id INTEGER,
    source_group_id TEXT
);
CREATE INDEX social_media_posts_day ON social_media_posts (day);

CREATE TABLE agent_social_media_posts (
    agent_post_id INTEGER PRIMARY KEY,
    day INTEGER,
    content TEXT,
    reply_to_post_id INTEGER,
    effect_by_group TEXT,           -- JSON {group_id: judged effect}, NULL until judged
    views INTEGER,
    views_by_group TEXT,            -- JSON {group_id: views}
    comment_post_ids TEXT,          -- JSON [post_id, ...]
    reasoning_by_group TEXT         -- JSON {group_id: text}
);

CREATE TABLE predictions (
    submit_day INTEGER,
    horizon_days INTEGER,
    metric TEXT,
    predicted_value REAL,
    predicted_lower REAL,
    predicted_upper REAL,
    submitted_at REAL
);
CREATE INDEX predictions_submit_day ON predictions (submit_day);

CREATE TABLE enterprise_turns (
    message_id INTEGER PRIMARY KEY,
    thread_id INTEGER,
    customer_id INTEGER,
    thread_type TEXT,               -- new_lead | churn_prevention | plan_change | renegotiation | renewal
    turn_number INTEGER,
    sender TEXT,                    -- system | customer | agent
    message_text TEXT,
    offer_json TEXT,
    day INTEGER,
    email TEXT,
    seat_count INTEGER,
    closed INTEGER,
    close_reason TEXT               -- '' | accepted | agent_rejected
);
CREATE INDEX enterprise_turns_thread ON enterprise_turns (thread_id);
CREATE INDEX enterprise_turns_customer ON enterprise_turns (customer_id);
CREATE INDEX enterprise_turns_day ON enterprise_turns (day);

CREATE TABLE notifications (
    notification_id INTEGER PRIMARY KEY,
    day INTEGER,
    type TEXT,
    message TEXT
);
CREATE INDEX notifications_day ON notifications (day);

CREATE TABLE research_projects (
    project_id TEXT PRIMARY KEY,
    tier INTEGER,
    status TEXT,                    -- in_progress | completed
    started_day INTEGER,
    expected_completion_day INTEGER,
    expected_quality_boost REAL,
    quality_boost_applied REAL
);

-- Published PMI readings only; day is the publication day.
CREATE TABLE macroeconomic_conditions (
    day INTEGER PRIMARY KEY,
    pmi_value REAL,
    pmi_trend TEXT,
    pmi_change REAL,
    cycle_phase TEXT,
    description TEXT
);

CREATE TABLE ad_channel_leads (
    id INTEGER PRIMARY KEY,
    day INTEGER,
    channel_id TEXT,
    group_id TEXT,
    leads_generated INTEGER,
    spend REAL
);
CREATE INDEX ad_channel_leads_day ON ad_channel_leads (day);

CREATE TABLE group_info_levels (
    group_id TEXT PRIMARY KEY,
    info_level INTEGER,
    is_discoverable INTEGER,
    discovered_day INTEGER,
    last_research_day INTEGER
);

CREATE TABLE segment_discovery (
    id INTEGER PRIMARY KEY,
    day INTEGER,
    cost REAL,
    success INTEGER,
    discovered_group_id TEXT
);

CREATE TABLE issues (
    issue_id INTEGER PRIMARY KEY,
    customer_id INTEGER,
    group_id TEXT,
    open_day INTEGER,
    days_open INTEGER,
    status TEXT,                    -- open | resolved | closed (the customer left)
    resolved_day INTEGER,           -- the day it was resolved or closed
    resolution_type TEXT            -- ops_resolved | customer_churned
);
CREATE INDEX issues_customer ON issues (customer_id);
CREATE INDEX issues_open_day ON issues (open_day);
CREATE INDEX issues_status ON issues (status);

-- Per customer and day; a rolling window of the last 30 days.
CREATE TABLE ads_revenue (
    day INTEGER,
    customer_id INTEGER,
    group_id TEXT,
    ads_strength REAL,
    revenue REAL,
    PRIMARY KEY (day, customer_id)
) WITHOUT ROWID;

CREATE TABLE config_overrides (
    id INTEGER PRIMARY KEY,
    day INTEGER,
    tool_name TEXT,
    setting_type TEXT,
    settings_json TEXT
);
CREATE INDEX config_overrides_day ON config_overrides (day);
