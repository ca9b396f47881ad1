/* oomlint's entry point: everything happens in oom_cli_main. */
#include "oomlint/cli.h"

int main(int argc, char **argv)
{
    return oom_cli_main(argc, argv);
}
