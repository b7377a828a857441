// ISMCTS in C++ (duel/agents/mcts.py's search): see search.cpp.
#pragma once
#include <pybind11/pybind11.h>

void bind_search(pybind11::module_& m);
