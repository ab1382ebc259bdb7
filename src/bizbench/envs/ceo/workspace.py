"""Public documents placed in the agent's workspace (reference-notes §8 workspace; paper §2.3, Appendix B).

Everything here is what the published benchmark documents for the operator: the rules, the
tables and the day-0 channel table (the seat adds the tool reference, generated from the
registry). Nothing hidden.
"""

from __future__ import annotations

import json

from bizbench.envs.ceo.config import CeoConfig
from bizbench.envs.ceo.env import public_channel_table

INSTRUCTIONS = """\
# Running NovaMind

You are the CEO of NovaMind, a company that sells an AI assistant by subscription. The
simulation runs for {days} days ({weeks} weekly turns). You start with ${cash:,.0f} and no
customers. Your score is the cash you hold at the end; if cash ever drops below zero the
company is bankrupt and the run ends.

## How you act
- Use the Python SDK: `import novamind_api as nm`, then call tools such as
  `nm.set_prices(A=12, B=25, C=55)`, `nm.query("SELECT ...")` or `nm.get_vars()`.
  A failed call raises `nm.NovaMindAPIError` with a message naming the problem; nothing changes.
- Settings you change apply from the next simulated day. Map-valued settings (targeted
  spend, promotions) replace the whole map; `{{}}` clears one.
- End each turn with `nm.next_week(rationale=..., predictions=...)`. It simulates 7 days and
  returns the weekly dashboard. Forecast your cash 1, 4, 12 and 26 weeks ahead, each as
  `{{"point": p, "lower": l, "upper": u}}` with an honest 95 % interval.
- The company database (see docs/tables.md) has 19 read-only tables. Queries return at most
  5,000 rows and stop after 30 seconds: aggregate or use LIMIT.

## What matters
- Customers belong to groups (students, developers, enterprises ...). Six are known at
  the start; `research_market()` may discover others. `research_group()` sharpens what
  you know about a group; `get_group_insights()` shows it.
- Leads come from advertising, which is bought per (channel, group) with
  `set_targeted_ad_spend`; docs/channel_leads.json lists the day-0 leads per $1,000/day.
  The live values drift every month.
- Quality comes from development spend (global or targeted per group), R&D projects and the
  model tier serving each plan; capacity must keep up with usage or service degrades.
- Enterprise firms negotiate. A prospect firm opens talks (a `new_lead` thread) only if one
  of your plans has good enough quality for it at some price and that plan's daily usage
  quota covers the firm's whole usage (usage per seat x seats); otherwise it walks away,
  and a `large_customer_message` notification says how many did and why (quota or quality).
  Each firm is one of a finite market: a firm already a lead, a customer, lost or gone
  does not come back as a new lead.
- Answer a thread within {deadline} days with up to 3 (plan, price per seat) offers, or the
  lead is lost. An offer below what the firm will pay for that plan's quality is accepted;
  above it the firm counters, each round closer to its limit, and stops replying after its
  maximum number of rounds. Offering its counter back closes the deal. Sending again
  before it answers replaces your offer and restarts its wait. Replying late costs goodwill.
- Customers talk about you in public posts (`get_social_posts`). You may post once per turn
  (280 characters); groups that find a post compelling send more leads for a few days.
- The economy moves in cycles (PMI readings are published monthly) and competitors launch
  products from time to time.

## Memory
Your conversation may be cleared between turns. Keep notes and scripts in files in this
workspace.
"""


#: "How you act" for an agent that calls the tools by name (not through the SDK)
TOOLS_HOW = """## How you act
- Call the tools by name, e.g. set_prices(A=12, B=25, C=55), query(sql="SELECT ...") or get_vars().
  A failed call returns an error naming the problem; nothing changes.
- Settings you change apply from the next simulated day. Map-valued settings (targeted
  spend, promotions) replace the whole map; `{{}}` clears one.
- End each turn with next_week(rationale=..., predictions=...). It simulates 7 days and
  returns the weekly dashboard. Forecast your cash 1, 4, 12 and 26 weeks ahead, each as
  `{{"point": p, "lower": l, "upper": u}}` with an honest 95 % interval.
- The company database (describe_tables() lists it) has 19 read-only tables. Queries return at most
  5,000 rows and stop after 30 seconds: aggregate or use LIMIT.
"""


def instructions(config: CeoConfig, sdk: bool = True) -> str:
    """docs/instructions.md; ``sdk=False``: "How you act" by tool names instead of the SDK."""
    text = INSTRUCTIONS
    if not sdk:
        start, end = text.index("## How you act"), text.index("## What matters")
        text = text[:start] + TOOLS_HOW + "\n" + text[end:]
        text = text.replace("docs/channel_leads.json lists", "the day-0 table below lists")
        text = text[: text.index("## Memory")].rstrip("\n") + "\n"
    days = config.horizon_days
    out = text.format(
        days=days,
        weeks=-(-days // config.days_per_turn),
        cash=config.start_cash,
        deadline=config.enterprise.reply_deadline_days,
    )
    if not sdk:
        table = json.dumps(public_channel_table(config), indent=1, sort_keys=True)
        out += f"\n## Day-0 leads per $1,000/day (channel by group)\n\n{table}\n"
    return out


def workspace_documents(config: CeoConfig) -> dict[str, str]:
    """Relative path -> text of the env's own public documents of the agent's workspace (the seat
    writes docs/tools.md and docs/README.md from the registry, core/sdkgen.py)."""
    return {
        "docs/instructions.md": instructions(config),
        "docs/tables.md": tables_markdown(),
        "docs/channel_leads.json": json.dumps(public_channel_table(config), indent=2, sort_keys=True) + "\n",
    }


def tables_markdown() -> str:
    """docs/tables.md: the 19 agent-visible tables with their columns (reference-notes §5.1)."""
    from bizbench.envs.ceo.store import describe_tables

    out = ["# Company database", "", "Query with `nm.query(sql)`: one read-only SELECT, at most 5,000 rows.", ""]
    for table in describe_tables():
        out += [f"## `{table['table']}`", "", table["description"], ""]
        out += ["| column | type | values |", "|---|---|---|"]
        out += [
            f"| `{c['name']}` | {c['type']} | {', '.join(f'`{v}`' for v in c.get('values', []))} |"
            for c in table["columns"]
        ]
        out.append("")
    return "\n".join(out)
