"""try_import: imports an optional dependency with a clear message when it is missing."""
import importlib

__all__ = ["try_import"]


def try_import(module_name, err_msg=None):
    """Imports and returns ``module_name``; raises ImportError naming it when it is missing."""
    try:
        return importlib.import_module(module_name)
    except ImportError as e:
        if err_msg is None:
            err_msg = (f"Failed importing {module_name}. This likely means that some skiff "
                       f"modules require additional dependencies that have to be manually "
                       f"installed (usually with `pip install {module_name}`).")
        raise ImportError(err_msg) from e
