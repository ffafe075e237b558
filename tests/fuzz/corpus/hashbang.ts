#!/usr/bin/env coderun
return 1
