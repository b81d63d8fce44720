"""import-linter contracts of skiff's own (pyproject.toml, [tool.importlinter]).

The import graph cannot see the compiled module skiff._C, so ``from .. import _C`` reads to
it as an import of the root package ``skiff``; the layer contracts therefore ignore imports
of the root, and this contract checks that each one imports ``_C`` and nothing else (the
root package imports every subpackage, so importing anything else from it would hide a
dependency on all of them)."""
import re

from importlinter.domain.contract import Contract, ContractCheck

_BINDING = re.compile(r"^\s*from\s+(\.+|skiff)\s+import\s+_C\b|^\s*from\s+(\.+_C|skiff\._C)\s+import\s"
                      r"|^\s*import\s+skiff\._C\b")


class RootImportsContract(Contract):
    type_name = "root_imports"

    def check(self, graph, verbose):
        root = self.session_options["root_packages"][0]
        bad = []
        for importer in sorted(graph.find_modules_that_directly_import(root)):
            if importer == root:
                continue
            for detail in graph.get_import_details(importer=importer, imported=root):
                if not _BINDING.match(detail["line_contents"]):
                    bad.append(f"{importer}:{detail['line_number']}: {detail['line_contents']}")
        return ContractCheck(kept=not bad, metadata={"imports": bad})

    def render_broken_contract(self, check):
        from importlinter.application import output  # noqa: PLC0415  (the tool's own module)
        for line in check.metadata["imports"]:
            output.print_error(line)
