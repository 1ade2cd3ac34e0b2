"""Kernel names: demangled as ``c++filt`` prints them (``demangle``, and ``demangle_fallback`` where no C++
runtime answers) and made safe to print (``printable``)."""
