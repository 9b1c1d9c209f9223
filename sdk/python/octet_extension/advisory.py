"""Types of the API 0.4 advisory hooks, as the spec's examples import them (PY-46..48).

The payload member names are the host's (packages/protocol/src/api/advisory-hooks.ts; PY-48 GAP
default). Monetary fields are microdollars; prompt text, provider transport and credentials are
never part of it.
"""
from typing import Literal, TypedDict

__all__ = ["CacheWarmingAction", "CacheWarmingDecision", "CacheWarmingDecisionPayload"]

#: What advice may say; None (returned instead) means no opinion.
CacheWarmingAction = Literal["warm", "stop"]


class CacheWarmingDecision(TypedDict):
    phase: Literal["streaming", "idle"]
    warm_cost_microdollars: float
    miss_cost_microdollars: float
    continuation_probability: float
    expected_savings_microdollars: float
    economics_available: bool
    host_action: CacheWarmingAction


class CacheWarmingDecisionPayload(TypedDict):
    decision: CacheWarmingDecision
    model: str
