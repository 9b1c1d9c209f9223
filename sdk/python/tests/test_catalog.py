"""Dynamic tools: catalog epochs and local refusals (PY-09, PY-10)."""
import asyncio
import unittest

from harness import FakeHost
from octet_extension import Extension
from octet_extension.catalog import RETAINED_EPOCHS, ToolCatalog


class CatalogTest(unittest.IsolatedAsyncioTestCase):
    async def test_PY_10_eight_committed_epochs_plus_the_staged_one(self):
        """PY-10: the last eight committed epochs answer; a retired or unknown one is -32602 naming the kept epochs; the
        staged epoch answers while its mutation waits."""
        catalog = ToolCatalog({"a": 0})
        for r in range(1, 11):
            await catalog.mutate(
                lambda cur, r=r: {**cur, f"t{r}": r}, lambda r=r: _answer(r, ["a"] + [f"t{i}" for i in range(1, r + 1)])
            )
        self.assertEqual(RETAINED_EPOCHS, 8)
        self.assertEqual(catalog.known, list(range(3, 11)))
        self.assertIn("t5", catalog.at(5))
        self.assertNotIn("t6", catalog.at(5))
        for gone in (2, 11):
            with self.assertRaises(Exception) as caught:
                catalog.at(gone)
            self.assertEqual(caught.exception.code, -32602)
            self.assertIn(
                f"catalog_revision {gone}; this process keeps epochs 3, 4, 5, 6, 7, 8, 9, 10", caught.exception.message
            )
        gate = asyncio.get_running_loop().create_future()
        pending = asyncio.ensure_future(catalog.mutate(lambda cur: {**cur, "new": 1}, lambda: gate))
        await asyncio.sleep(0)
        self.assertIn("new", catalog.at(11))
        gate.set_result({"revision": 11, "tools": ["a", "new"]})
        self.assertEqual(await pending, {"revision": 11, "tools": ["a", "new"]})
        self.assertEqual(sorted(catalog.at(11)), ["a", "new"])  # the host's list is authoritative
        self.assertEqual(catalog.known, list(range(4, 12)))

    async def test_PY_09_empty_mutations_are_refused_locally(self):
        """PY-09: an empty register_tools/unregister_tools raises before anything is sent."""
        ext = Extension(api_version="0.2", dynamic_tools=True)
        h = FakeHost(ext)
        try:
            await h.start()
            for call in (lambda: ext.register_tools([]), lambda: ext.unregister_tools([])):
                with self.assertRaisesRegex(ValueError, "an empty change is not sent"):
                    call()
            await asyncio.sleep(0.05)
            self.assertFalse(any(f.get("method", "").startswith("tools/") for f in h.seen))
            self.assertTrue(h.out.empty())
        finally:
            await h.stop()

    async def test_PY_10_calls_dispatch_by_catalog_revision_end_to_end(self):
        """PY-10: register_tools from a handler stages then commits an epoch; tool/call with an old revision uses that
        epoch's handler; a retired one is -32602."""
        ext = Extension(api_version="0.2", dynamic_tools=True)
        ext.tool(name="v", description="version")(lambda a: "v0")

        @ext.tool(name="upgrade", description="register a new v")
        def upgrade(args):
            return str(ext.register_tools([{"name": "v", "description": "version", "handler": lambda a: "v1"}]))

        h = FakeHost(ext)
        try:
            init = await h.start()
            self.assertIn("dynamic_tools", init["protocol"]["features"])
            rid = await h.tool("upgrade", catalog_revision=0)
            reg = await h.expect(lambda f: f.get("method") == "tools/register")
            self.assertEqual([t["name"] for t in reg["params"]["tools"]], ["v"])
            # Published by the host before its answer: the staged epoch already dispatches.
            staged = await h.response(await h.tool("v", catalog_revision=1))
            self.assertEqual(staged["result"]["content"][0]["text"], "v1")
            h.respond(reg["id"], {"revision": 1, "tools": ["v", "upgrade"]})
            self.assertEqual(
                (await h.response(rid))["result"]["content"][0]["text"], "{'revision': 1, 'tools': ['v', 'upgrade']}"
            )
            old = await h.response(await h.tool("v", catalog_revision=0))
            self.assertEqual(old["result"]["content"][0]["text"], "v0")
            self.assertEqual(ext.catalog_revision, 1)
            self.assertEqual((await h.response(await h.tool("v", catalog_revision=7)))["error"]["code"], -32602)
        finally:
            await h.stop()


async def _answer(revision, names):
    return {"revision": revision, "tools": names}


if __name__ == "__main__":
    unittest.main()
