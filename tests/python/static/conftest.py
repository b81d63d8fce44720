"""Static-mode tests run in fresh programs with a fresh global scope, and leave skiff in
eager mode afterwards."""
import pytest


@pytest.fixture
def static():
    """skiff.static, in static mode, with new default main/startup programs and scope."""
    import skiff
    import skiff.static as st
    main, startup = st.Program(), st.Program()
    skiff.enable_static()
    try:
        with st.program_guard(main, startup), st.scope_guard(st.Scope()):
            yield st
    finally:
        skiff.disable_static()
        skiff.set_flags({"check_nan_inf": False})
