#!/bin/sh
# Runs build/oomlint under valgrind memcheck with the caller's arguments,
# keeping its exit code; any memory error or leak makes it exit 99. Used as
# OOMLINT for the end-to-end suite (tests/run.sh).
exec valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --show-leak-kinds=definite,indirect "$(dirname "$0")/../build/oomlint" "$@"
