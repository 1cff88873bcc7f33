#!/usr/bin/env node
import '../dist/simulators/sim/main.js';
