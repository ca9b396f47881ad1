/* The other half of the circle: calls one.c back. A comment naming
 * one_twice() and a string "one_twice(" are not calls. */
int one_twice(int n);

int two_half(int n)
{
    return n < 2 ? n : one_twice(n / 2);
}
