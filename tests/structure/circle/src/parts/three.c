/* Calls into the circle without being part of it. */
int one_twice(int n);

int three_start(void)
{
    return one_twice(3);
}
