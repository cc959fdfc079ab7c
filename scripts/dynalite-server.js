#!/usr/bin/env node
// Launcher for dynalite, used by scripts/backend.
//
// Why not dynalite's own cli.js: in dynalite 3.x it has no --host flag and
// always listens on every interface. We only want 127.0.0.1, so we call the
// library ourselves. Without --path dynalite keeps everything in memory
// (memdown), so the native leveldown module is never loaded.
//
// Usage: node scripts/dynalite-server.js --port P [--host H] [--check]
//        [--createTableMs N] [--deleteTableMs N] [--updateTableMs N] [...]
//   --check  listen on an ephemeral port, answer one ListTables, exit 0
//            (used by scripts/install-backends to verify the install).
'use strict'

var path = require('path')

var modules = process.env.DYNALITE_MODULES ||
  path.join(__dirname, '..', '.tools', 'dynalite', 'node_modules')
var minimist = require(path.join(modules, 'minimist'))
var dynalite = require(path.join(modules, 'dynalite'))

var argv = minimist(process.argv.slice(2), {
  string: ['host'],
  boolean: ['check'],
  default: {host: '127.0.0.1'},
})

// Same reason as dynalite's cli.js: as PID 1 SIGINT would not stop us.
process.on('SIGINT', function() { process.exit(0) })
process.on('SIGTERM', function() { process.exit(0) })

var port = argv.check ? 0 : argv.port
if (port === undefined) {
  console.error('dynalite-server: --port is required')
  process.exit(2)
}

var server = dynalite(argv)
server.on('error', function(err) {
  console.error('dynalite-server: ' + err.message)
  process.exit(1)
})
server.listen(port, argv.host, function() {
  var address = server.address()
  console.log('Listening at http://%s:%s', address.address, address.port)
  if (argv.check) selfCheck(address)
})

// One real DynamoDB request against ourselves, then exit.
function selfCheck(address) {
  var http = require('http')
  var req = http.request({
    host: address.address,
    port: address.port,
    method: 'POST',
    path: '/',
    headers: {
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': 'DynamoDB_20120810.ListTables',
      'X-Amz-Date': '20240101T000000Z',
      // dynalite checks the header's shape, never the signature.
      'Authorization': 'AWS4-HMAC-SHA256 Credential=test/20240101/us-east-1/dynamodb/aws4_request, ' +
        'SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=00',
    },
  }, function(res) {
    var body = ''
    res.on('data', function(d) { body += d })
    res.on('end', function() {
      var ok = res.statusCode === 200 && /TableNames/.test(body)
      console.log('self-check: HTTP %d %s', res.statusCode, body)
      process.exit(ok ? 0 : 1)
    })
  })
  req.on('error', function(err) {
    console.error('self-check failed: ' + err.message)
    process.exit(1)
  })
  req.end('{}')
}
