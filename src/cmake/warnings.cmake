# Warnings of gsr's own code — the libraries, the Fortran glue, the tools and the examples —
# set in one place. GSR_WERROR turns them into errors: CI's sanitized build sets it, so a
# new warning fails CI, while a user's default build (other compilers, other versions) only
# warns.
option(GSR_WERROR "Treat warnings in gsr's libraries, tools and examples as errors (CI)" OFF)

function(gsr_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra>
    $<$<COMPILE_LANGUAGE:Fortran>:-Wall>)
  if(GSR_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
