// One registration function per op family file; register_all_ops calls them all.
#pragma once

namespace skiff {

class OpRegistry;

void register_all_ops(OpRegistry& r);

}  // namespace skiff
