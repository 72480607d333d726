module.exports = require('./leftovers').teardown;
