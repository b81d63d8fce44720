"""import-linter contracts of skiff's own (pyproject.toml, [tool.importlinter]).

The import graph cannot see the modules the build writes, the binding skiff._C and the op-call
layer skiff._C_ops generated from it, so ``from .. import _C`` reads to it as an import of the
root package ``skiff``; the layer contracts therefore ignore imports of the root, and this
contract checks that each one imports ``_C`` or ``_C_ops`` and nothing else (the root package
imports every subpackage, so importing anything else from it would hide a dependency on all
of them). ``_C_ops`` imports ``skiff.framework.core`` (the dispatch point) and nothing else,
so neither that module nor anything it imports may import ``_C_ops``: that would be a cycle."""
import re

from importlinter.domain.contract import Contract, ContractCheck

_BINDING = re.compile(r"^\s*from\s+(\.+|skiff)\s+import\s+_C(_ops)?\s*$"
                      r"|^\s*from\s+(\.+_C|skiff\._C)\s+import\s|^\s*import\s+skiff\._C\b")
_OPS = re.compile(r"\b_C_ops\b")
# What the generated skiff._C_ops imports.
_OPS_IMPORTS = "skiff.framework.core"


def _imported_by(graph, module, root):
    """``module`` and every module it imports, directly or not (not through the root)."""
    seen, todo = {module}, [module]
    while todo:
        for imported in graph.find_modules_directly_imported_by(todo.pop()):
            if imported != root and imported not in seen:
                seen.add(imported)
                todo.append(imported)
    return seen


class RootImportsContract(Contract):
    type_name = "root_imports"

    def check(self, graph, verbose):
        root = self.session_options["root_packages"][0]
        bad = []
        below_ops = _imported_by(graph, _OPS_IMPORTS, root)
        for importer in sorted(graph.find_modules_that_directly_import(root)):
            if importer == root:
                continue
            for detail in graph.get_import_details(importer=importer, imported=root):
                line = detail["line_contents"]
                if not _BINDING.match(line):
                    bad.append(f"{importer}:{detail['line_number']}: {line}")
                elif _OPS.search(line) and importer in below_ops:
                    bad.append(f"{importer}:{detail['line_number']}: {line} (skiff._C_ops "
                               f"imports {_OPS_IMPORTS}, which imports this module: a cycle)")
        return ContractCheck(kept=not bad, metadata={"imports": bad})

    def render_broken_contract(self, check):
        from importlinter.application import output  # noqa: PLC0415  (the tool's own module)
        for line in check.metadata["imports"]:
            output.print_error(line)
