from typing import Optional
from octet_extension import CacheWarmingAction, CacheWarmingDecisionPayload, Extension

ext = Extension(api_version="0.4")

@ext.cache_warming_decision
def advise(payload: CacheWarmingDecisionPayload) -> Optional[CacheWarmingAction]:
    if payload["decision"]["warm_cost_microdollars"] > 5_000:
        return "stop"
    return None  # Preserve the host's economics or an earlier hook's action.

ext.run()
