module.exports = require('./leftovers').setup;
