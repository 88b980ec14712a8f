# calltraceConfig.cmake - find_package(calltrace): the imported target
# calltrace::calltrace links the calltrace runtime (libcalltrace.so) and
# compiles its users with -finstrument-functions, so that every function of
# a target that links it is recorded.  calltrace::static links
# libcalltrace.a instead.  calltrace_EXECUTABLE is the calltrace command.
get_filename_component(_calltrace_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(NOT TARGET calltrace::calltrace)
  find_package(Threads REQUIRED)
  add_library(calltrace::calltrace SHARED IMPORTED)
  set_target_properties(calltrace::calltrace PROPERTIES
    IMPORTED_LOCATION "${_calltrace_prefix}/lib/libcalltrace.so"
    IMPORTED_SONAME "libcalltrace.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_calltrace_prefix}/include"
    INTERFACE_COMPILE_OPTIONS "-finstrument-functions")
  add_library(calltrace::static STATIC IMPORTED)
  set_target_properties(calltrace::static PROPERTIES
    IMPORTED_LOCATION "${_calltrace_prefix}/lib/libcalltrace.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_calltrace_prefix}/include"
    INTERFACE_COMPILE_OPTIONS "-finstrument-functions"
    INTERFACE_LINK_LIBRARIES "${CMAKE_DL_LIBS};Threads::Threads")
endif()

set(calltrace_EXECUTABLE "${_calltrace_prefix}/bin/calltrace")
set(calltrace_INCLUDE_DIRS "${_calltrace_prefix}/include")
set(calltrace_LIBRARIES calltrace::calltrace)
unset(_calltrace_prefix)
