/* tests/structure/circle: two files that call each other, which
 * tests/structure/circles.js must report (tests/run.sh checks it does). */
int two_half(int n);

int one_twice(int n)
{
    return n > 100 ? n : two_half(n * 4);
}
