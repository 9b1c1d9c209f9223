from dataclasses import dataclass
from typing import Optional
from octet_extension import Extension

ext = Extension(api_version="0.4")

@dataclass
class Record:
    name: str
    enabled: bool
    samples: list[float]
    note: Optional[str] = None

@ext.typed_tool(name="echo", description="Echo a typed record",
                summary=lambda value: "Echoed typed record.")
def echo(value: Record) -> Record:
    ext.cancellation.raise_if_cancelled()
    return value

ext.run()
