// Copies what tsc does not emit into dist/: the icons and the codex (*.node.json) files.
const { src, dest, parallel } = require('gulp');

function copyIcons() {
	return src('icons/*.svg').pipe(dest('dist/icons'));
}

function copyCodex() {
	return src('nodes/**/*.node.json').pipe(dest('dist/nodes'));
}

exports.build = parallel(copyIcons, copyCodex);
exports.default = exports.build;
