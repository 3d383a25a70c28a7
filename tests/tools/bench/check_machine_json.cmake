# check_machine_json.cmake — validates what `gsr-bench --calibrate FILE --json RECORDS` wrote
# (docs/scaling.md, "Machine file"):
#   cmake -DMACHINE=machine.json -DJSON=calibration.json -P check_machine_json.cmake
# The machine file says format gsr-machine, and alpha, beta and the local pass (per entry
# and per component) are numbers
# above 0 (alpha under a second, beta under a microsecond per byte: measured, not garbage);
# the records hold a ping-pong and a streaming probe for every message size.
cmake_minimum_required(VERSION 3.25)
file(READ "${MACHINE}" machine)
string(JSON format GET "${machine}" format)
if(NOT format STREQUAL "gsr-machine")
  message(FATAL_ERROR "${MACHINE}: format '${format}', expected gsr-machine")
endif()
foreach(pair "alpha_seconds:1" "beta_seconds_per_byte:1e-6" "local_seconds_per_entry:1e-3"
             "local_seconds_per_value:1e-3")
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 field)
  list(GET pair 1 limit)
  string(JSON value GET "${machine}" ${field})
  # CMake compares numbers as doubles only through math(); compare via Python-free parsing:
  # a positive value has no leading '-' and is not zero.
  if(value MATCHES "^-" OR value MATCHES "^0(\\.0*)?([eE].*)?$")
    message(FATAL_ERROR "${MACHINE}: ${field} = ${value}, not above 0")
  endif()
  if(value MATCHES "[eE]\\+" OR (NOT value MATCHES "[eE]" AND value GREATER_EQUAL ${limit}))
    message(FATAL_ERROR "${MACHINE}: ${field} = ${value}, implausibly large (limit ${limit})")
  endif()
endforeach()
file(READ "${JSON}" document)
string(JSON count LENGTH "${document}" records)
set(seen "")
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON kind GET "${document}" records ${i} kind)
  string(JSON probe GET "${document}" records ${i} probe)
  string(JSON bytes GET "${document}" records ${i} message_bytes)
  if(NOT kind STREQUAL "calibration")
    message(FATAL_ERROR "${JSON}: record ${i} is a '${kind}' record")
  endif()
  list(APPEND seen "${probe}:${bytes}")
endforeach()
foreach(bytes 0 8 64 512 4096 32768 262144 1048576)
  foreach(probe ping_pong streaming)
    if(NOT "${probe}:${bytes}" IN_LIST seen)
      message(FATAL_ERROR "${JSON}: no ${probe} record for ${bytes}-byte messages")
    endif()
  endforeach()
endforeach()
message(STATUS "${MACHINE}: a machine file with positive alpha, beta and local pass; ${count} probe records")
