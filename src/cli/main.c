/* main.c - placeholder until the command table lands */
#include <stdio.h>
int main(void)
{
	fprintf(stderr, "dmlscope: not built yet\n");
	return 2;
}
