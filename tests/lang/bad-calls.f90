! bad-calls: morph's documented errors reach a Fortran program (the
! morph_f08 module): a data name registered twice gives MORPH_EEXIST with
! morph's message naming it, an array handle registered twice MORPH_EINVAL,
! and a point after morph_finalize gives MORPH_ESTATE ("the context was
! finalized"), all through ierr. With the
! argument --no-ierr the second registration has no ierr, and the job must
! end as MPI's default error handler would: the message, then an abort.
program bad_calls
  use mpi_f08
  use morph_f08
  implicit none
  type(morph_ctx) :: m
  type(morph_real64), target :: x, y
  integer :: ierr, st, provided, failures
  character(len=16) :: arg
  failures = 0
  call get_command_argument(1, arg)
  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided)
  call morph_open(MPI_COMM_WORLD, m)
  call morph_data_block(m, 'x', x, 10, ierr=ierr)
  call expect(ierr == MORPH_OK .and. size(x%local) == x%count, 'x registered')
  if (arg == '--no-ierr') call morph_data_block(m, 'x', y, 10)
  call morph_data_block(m, 'x', y, 10, ierr=ierr)
  call expect(ierr == MORPH_EEXIST, 'x registered twice: ierr ' // morph_err_name(ierr))
  call expect(index(morph_errmsg(m), "'x'") > 0, 'the message names x: ' // morph_errmsg(m))
  call expect(morph_strerror(ierr) == 'object already exists', 'morph_strerror(MORPH_EEXIST)')
  call morph_data_block(m, 'z', x, 10, ierr=ierr)
  call expect(ierr == MORPH_EINVAL, 'a handle registered twice: ' // morph_err_name(ierr))
  call expect(index(morph_errmsg(m), "holds the array 'x'") > 0, 'message: ' // morph_errmsg(m))
  call morph_finalize(m, 0)
  call morph_point(m, st, ierr)
  call expect(ierr == MORPH_ESTATE, 'point after finalize: ierr ' // morph_err_name(ierr))
  call expect(morph_errmsg(m) == 'the context was finalized', 'message: ' // morph_errmsg(m))
  call expect(.not. morph_is_open(m), 'closed')
  call expect(size(x%local) == 0 .and. x%count == 0, 'the arrays are empty after finalize')
  if (failures > 0) stop 1, quiet=.true.
  print '(a)', 'bad-calls: all expected errors'

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) then
      print '(2a)', 'PASS ', what
    else
      print '(2a)', 'FAIL ', what
      failures = failures + 1
    end if
  end subroutine

end program bad_calls
