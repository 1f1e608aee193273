#!/usr/bin/env node
// Prints the project's topics as TOPIC:PARTITIONS lines, from the one table in libs/events.
const { allTopics } = require('../../libs/events/dist/topics.js');

for (const topic of allTopics()) process.stdout.write(`${topic.name}:${topic.partitions}\n`);
